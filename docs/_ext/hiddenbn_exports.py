"""The ``hiddenbn-exports`` directive: a summary table of ``hiddenbn``'s public names (its
``__all__``), each linked to where it is defined and documented, so the table follows the
exports and nothing is documented twice."""

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

import hiddenbn


def defined_at(name: str) -> str:
    """The dotted path where the public name `name` is defined (module, then qualified name)."""
    found = getattr(hiddenbn, name)
    return f"{found.__module__}.{found.__qualname__}"


class HiddenbnExports(SphinxDirective):
    """An ``autosummary`` of the public names, each shown by its own name."""

    def run(self):
        lines = [".. autosummary::", ""]
        lines += [f"   ~{defined_at(name)}" for name in hiddenbn.__all__]
        holder = nodes.container()
        self.state.nested_parse(StringList(lines, source="hiddenbn-exports"),
                                self.content_offset, holder)
        return holder.children


def setup(app):
    app.add_directive("hiddenbn-exports", HiddenbnExports)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}

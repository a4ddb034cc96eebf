"""The ``hiddenbn-packages`` directive: hiddenbn's subpackages, lowest first, each with what its
docstring says it holds, its modules, and the subpackages its docstring says it may import
(the line ``May import: ...``). The table is read from the package when the documentation is
built, so it follows the code. It is reStructuredText: use it in an ``eval-rst`` block of a
Markdown page."""

import importlib
import pkgutil
import re

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

import hiddenbn

MAY_IMPORT = re.compile(r"^May import:(?P<parts>.*?)(?:\n\n|\Z)", re.MULTILINE | re.DOTALL)


def subpackages() -> list:
    """(name, summary, modules, may import) of every subpackage, lowest first: by how many
    parts each may import ("every other part" last), then by name."""
    found = []
    for info in pkgutil.iter_modules(hiddenbn.__path__, "hiddenbn."):
        if not info.ispkg:
            continue
        package = importlib.import_module(info.name)
        doc = package.__doc__ or ""
        summary = doc.strip().split("\n\n")[0].replace("\n", " ")
        match = MAY_IMPORT.search(doc)
        allowed = " ".join(match["parts"].split()).rstrip(".") if match else ""
        parts = re.findall(r"hiddenbn(?:\.\w+)*", allowed.split("(")[0])
        rank = len(parts) if allowed.startswith("hiddenbn") else float("inf")
        modules = [f"{info.name}.{module.name}"
                   for module in pkgutil.iter_modules(package.__path__)]
        found.append((rank, info.name, summary, modules, allowed))
    return [entry[1:] for entry in sorted(found)]


class HiddenbnPackages(SphinxDirective):
    """A table: package, what it holds and its modules, what it may import."""

    def run(self):
        lines = [".. list-table::", "   :header-rows: 1", "   :widths: 18 52 30", "",
                 "   * - package", "     - what it holds", "     - may import"]
        for name, summary, modules, allowed in subpackages():
            shown = ", ".join(f":mod:`~{module}`" for module in modules)
            allowed = allowed.replace("hiddenbn.", "") or "—"
            lines += [f"   * - :mod:`{name}`", f"     - {summary} ({shown})",
                      f"     - {allowed}"]
        holder = nodes.container()
        self.state.nested_parse(StringList(lines, source="hiddenbn-packages"),
                                self.content_offset, holder)
        return holder.children


def setup(app):
    app.add_directive("hiddenbn-packages", HiddenbnPackages)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}

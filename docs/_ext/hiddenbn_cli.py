"""The ``hiddenbn-help`` directive: every ``hiddenbn`` command's ``--help``, as the parser prints
it when the documentation is built, one section per command (so the page cannot go stale).

The examples that every command's ``--help`` ends with are shown once, under ``hiddenbn``.
"""

import os
import textwrap

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from hiddenbn.cli import build_parser

#: The width of the help text, as a terminal of this many columns shows it.
COLUMNS = 100


def help_text(parser, epilog: bool) -> str:
    """`parser`'s ``--help``, `COLUMNS` wide, without its epilog unless `epilog`."""
    saved, os.environ["COLUMNS"] = os.environ.get("COLUMNS"), str(COLUMNS)
    shown, parser.epilog = parser.epilog, parser.epilog if epilog else None
    try:
        text = parser.format_help()
    finally:
        parser.epilog = shown
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    # a description is one long line (the formatter keeps it raw); the terminal would wrap it
    return "\n".join(textwrap.fill(line, COLUMNS) if len(line) > COLUMNS else line
                     for line in text.splitlines())


def commands(parser, words=("hiddenbn",)):
    """(words, parser) of `parser` and of every subcommand below it, depth first."""
    yield words, parser
    for choices in parser.subcommands:
        for name, subparser in choices.items():
            yield from commands(subparser, (*words, name))


class HiddenbnHelp(SphinxDirective):
    """A section per command, titled by its words, holding its ``--help``."""

    def run(self):
        sections = []
        for words, parser in commands(build_parser()):
            title = " ".join(words)
            section = nodes.section(ids=[nodes.make_id(title)], names=[nodes.fully_normalize_name(
                title)])
            section += nodes.title(text=title)
            text = help_text(parser, epilog=len(words) == 1)
            section += nodes.literal_block(text, text, language="none")
            self.state.document.note_implicit_target(section)
            sections.append(section)
        return sections


def setup(app):
    app.add_directive("hiddenbn-help", HiddenbnHelp)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}

"""Sphinx settings of the hiddenbn documentation (``make docs``: warnings are errors).

The pages are Markdown (MyST); the tutorial is a MyST notebook that myst-nb executes on every
build, and the command-line page shows each command's ``--help`` as the installed parser prints
it (``_ext/hiddenbn_cli.py``), so neither can fall behind the code. The build needs no network:
no intersphinx, and the tutorial's data ship in an installed package.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

import hiddenbn  # noqa: E402  (after the path of the local extension)

project = "hiddenbn"
author = "hiddenbn developers"
copyright = "hiddenbn developers"
release = hiddenbn.__version__
version = release

extensions = [
    "myst_nb",  # Markdown pages (myst-parser, loaded by it) and the executed tutorial
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "hiddenbn_cli",
    "hiddenbn_refs",
    "hiddenbn_exports",
    "hiddenbn_packages",
]

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb"}  # .rst first: autosummary writes rst
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# The tutorial runs on every build, top to bottom, and an error in it fails the build.
nb_execution_mode = "force"
nb_execution_raise_on_error = True
nb_execution_timeout = 600
nb_execution_show_tb = True
nb_execution_in_temp = True  # files the tutorial writes go to a temporary folder

autosummary_generate = True
autodoc_typehints = "none"  # the numpydoc sections give the types
# a package's re-exports (its __all__) are documented once, in the module that defines them
autodoc_default_options = {"members": True, "undoc-members": True, "ignore-module-all": True}
numpydoc_show_class_members = False
numpydoc_xref_param_type = False
numpydoc_validation_checks = set()

# -n: every cross-reference must resolve, except to the libraries hiddenbn builds on, whose
# inventories would need the network (no intersphinx).
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(builtins\.)?(float|int|str|bool|bytes|dict|list|tuple|set|object|type|None"
               r"|Exception|ValueError|TypeError|OSError)"),
    (r"py:.*", r"(numpy|np|pandas|pd|scipy|numba|sympy|matplotlib|snakemake|argparse"
               r"|collections|typing|pathlib|os|io|enum|dataclasses)(\..*)?"),
    # a docstring may name a private helper for the curious reader; the reference documents
    # only public names, so such a name is text, not a link
    (r"py:.*", r"(.*\.)?_\w+(\..*)?"),
]



def skip_aliases(app, what, name, obj, skip, options):
    """Leave out a class attribute that holds a function of another name (``statistics =
    staticmethod(tree_statistics)``): the function is documented where it is defined."""
    function = getattr(obj, "__func__", obj)
    if what == "class" and callable(function) and getattr(function, "__name__", name) != name:
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", skip_aliases)


html_theme = "alabaster"
html_title = f"hiddenbn {release}"
html_theme_options = {"description": "Model selection in Bayesian networks with hidden "
                                     "variables", "page_width": "1100px"}

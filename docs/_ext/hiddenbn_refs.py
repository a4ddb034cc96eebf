"""Cross-references that follow Python's imports.

A docstring names what its module can see: ``:data:`ACCELERATIONS``` in a module that imports
it from :mod:`hiddenbn.util.defaults`, or ``:data:`hiddenbn.data.MISSING``` through the names a
package re-exports. Sphinx looks a name up only where it is documented, so such a reference
would be broken; this resolves it as Python does (the name in the referring module or the
package, then the object it is) and links to where that object is documented.
"""

import importlib
import inspect
import re

from sphinx.util.nodes import make_refnode


def instance_attribute(owner, name: str) -> bool:
    """Whether `name` is an attribute of `owner`'s instances that the class itself does not
    hold: a dataclass field, one its docstring's Attributes section describes, or one its
    ``__init__`` sets."""
    if not inspect.isclass(owner):
        return False
    described = re.search(rf"^{re.escape(name)} :", inspect.getdoc(owner) or "", re.MULTILINE)
    try:
        initialiser = inspect.getsource(owner.__init__)
    except (OSError, TypeError):  # a builtin's or a generated __init__
        initialiser = ""
    assigned = re.search(rf"\bself\.{re.escape(name)}\b[^=\n]*=(?!=)", initialiser)
    return (name in getattr(owner, "__dataclass_fields__", {}) or described is not None
            or assigned is not None)


def python_object(path: str):
    """The object at dotted `path` (a module, then attributes), or None. An attribute of a
    class's instances is its class, whose Attributes section documents it."""
    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if instance_attribute(found, name):
                return found  # the class holds the field's default, if any, not the field
            if not hasattr(found, name):
                return None
            found = getattr(found, name)
        return found
    return None


def documented_name(objects, target: str, found) -> str | None:
    """The documented name of `found`, an object reached as `target`."""
    owner = getattr(found, "__module__", None)
    qualified = getattr(found, "__qualname__", None)
    if owner and qualified and f"{owner}.{qualified}" in objects:
        return f"{owner}.{qualified}"
    # data (a number, a tuple) does not know its module: the documented objects of the same
    # name that are this very object
    tail = target.rsplit(".", 1)[-1]
    same_name = [name for name in objects if name.rsplit(".", 1)[-1] == tail
                 and name.startswith("hiddenbn.") and python_object(name) is found]
    if same_name or isinstance(found, (int, str)) or found is None:
        # small numbers and short strings are shared objects: only a name can tell them apart
        return same_name[0] if len(same_name) == 1 else None
    # imported under another name (``import X as Y``)
    renamed = [name for name in objects if name.startswith("hiddenbn.")
               and python_object(name) is found]
    return renamed[0] if len(renamed) == 1 else None


def resolve(app, env, node, contnode):
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    domain = env.get_domain("py")
    # the referring module, then absolute, then hiddenbn's own names (its public API)
    scopes = [node.get("py:module"), None, "hiddenbn"]
    if node.get("py:class"):
        scopes.insert(0, f"{node['py:module']}.{node['py:class']}")
    for scope in scopes:
        path = f"{scope}.{target}" if scope else target
        if not path.startswith("hiddenbn"):
            continue
        found = python_object(path)
        if found is None:
            continue
        name = documented_name(domain.objects, path, found)
        if name is not None:
            entry = domain.objects[name]
            return make_refnode(app.builder, node["refdoc"], entry.docname, entry.node_id,
                                contnode, name)
    return None


def setup(app):
    app.connect("missing-reference", resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}

"""The workflow's config, checked before any job runs, one line per problem.

Snakemake's ``validate`` answers one problem with the whole schema and config (hundreds of
lines), JSON Schema's ``number`` lets through the NaN and infinities YAML writes as ``.nan`` and
``.inf``, and a YAML syntax error comes without its line. Here the config is checked against
the schema (:func:`read_schema`, package data) with every number finite and every integer
written as one, then each section's own checks run (what a schema cannot say: references
between keys, regular models, readable spec files), and every problem is one line::

    config studies.lc.generators.lc3.alpha: must be a positive number, got nan

Problems are raised as :class:`~hiddenbn.errors.ConfigError` (or the
:class:`~hiddenbn.errors.HiddenbnError` of a section's check); the workflow prints them and
stops with status 2 (:func:`exit_on_config_error`), the command line's status for bad input.
"""

from __future__ import annotations

import difflib
import math
import re
import sys
from contextlib import contextmanager
from importlib import resources
from pathlib import Path

import yaml
from jsonschema import Draft202012Validator, validators

from hiddenbn.errors import ConfigError, HiddenbnError
from hiddenbn.experiments import blrt as bootstrap_tests
from hiddenbn.experiments import studies as user_studies
from hiddenbn.experiments.papers import PAPERS, ChecksItsSection
from hiddenbn.reports.results import ConfigCheckResult
from hiddenbn.util import limits, textfiles

#: How a value of each JSON type is called in a problem.
TYPE_WORDS = {"integer": "an integer", "number": "a number", "string": "a string",
              "boolean": "true or false", "array": "a list", "object": "a mapping"}
#: What minItems and minProperties count, singular and plural.
SIZE_NOUNS = {"minItems": ("item", "items"), "minProperties": ("entry", "entries")}
#: A key a key path shows as it is: letters, digits, underscores and hyphens.
PLAIN_KEY = re.compile(r"[\w-]+")
#: The schema keyword mapping a key a section no longer has to the key path it moved to, so that
#: an older config is told where to write it rather than that the key is unknown (JSON Schema
#: ignores keywords it does not define).
MOVED_KEYWORD = "x-moved"
#: The longest value a problem shows in full (a section pasted at the wrong key can be long).
SHOWN_LENGTH = 60


# --- YAML syntax -----------------------------------------------------------------------------
def read_config_file(path):
    """The config file ``path`` parsed, with one line naming the file, line and column of a
    YAML syntax error (Snakemake's own message for one names neither), or naming a file that is
    missing, binary or not UTF-8."""
    text = textfiles.read_text(path, lambda problem: ConfigError([problem]), "config file",
                               limits.MAX_SPEC_FILE_BYTES)
    try:
        return yaml.load(text, Loader=textfiles.yaml_loader())
    except yaml.MarkedYAMLError as error:
        raise ConfigError([yaml_problem(path, error)]) from None


def yaml_problem(path, error: yaml.MarkedYAMLError) -> str:
    """One line for a YAML syntax error: where, what, and what the parser was reading."""
    mark = error.problem_mark
    line = f"config file {path}, line {mark.line + 1}, column {mark.column + 1}: {error.problem}"
    if error.context and error.context_mark:
        line += f" ({error.context} from line {error.context_mark.line + 1})"
    elif error.context:
        line += f" ({error.context})"
    return line


# --- the schema ------------------------------------------------------------------------------
def _is_integer(checker, value) -> bool:
    """An integer written as one: 3, not 3.0, which ``range`` and the file names would reject."""
    return isinstance(value, int) and not isinstance(value, bool)


def _is_finite_number(checker, value) -> bool:
    """A number other than NaN and the infinities (every comparison with NaN is false, so
    ``minimum`` and ``maximum`` alone would let it through)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return isinstance(value, int) or math.isfinite(value)


def _properties_with_defaults(validator, properties, instance, schema):
    """JSON Schema's ``properties``, filling in the ``default`` of each missing key first, as
    Snakemake's ``validate`` does (the rules read results_dir, moves and parts from the config
    whether or not the user wrote them); only in mappings, unlike Snakemake's."""
    if validator.is_type(instance, "object"):
        for key, subschema in properties.items():
            if "default" in subschema:
                instance.setdefault(key, subschema["default"])
    yield from Draft202012Validator.VALIDATORS["properties"](validator, properties, instance,
                                                             schema)


ConfigValidator = validators.extend(
    Draft202012Validator, {"properties": _properties_with_defaults},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine_many(
        {"integer": _is_integer, "number": _is_finite_number}))


def schema_problems(config: dict, schema: dict) -> list[str]:
    """One line per way ``config`` breaks ``schema`` (none if it fits), in schema order; fills
    in defaults as it goes."""
    lines = []
    for error in ConfigValidator(schema).iter_errors(config):
        for line in describe(error):
            if line not in lines:  # one keyword failing per missing key repeats the same line
                lines.append(line)
    return lines


def describe(error) -> list[str]:
    """The lines ``config <key path>: <problem>, got <value>`` of one jsonschema error."""
    path = list(error.absolute_path)
    value, schema, keyword = error.instance, error.schema, error.validator
    if keyword == "additionalProperties" and schema.get("additionalProperties") is False:
        known = list(schema.get("properties", {}))
        moved = schema.get(MOVED_KEYWORD, {})
        return [f"{where(path + [key])}: moved to {moved[key]}; write it there" if key in moved
                else f"{where(path + [key])}: unknown key; {_suggestion(key, known)}"
                for key in value if key not in known]
    if keyword == "required":
        return [f"{where(path + [key])}: missing; it is required"
                for key in error.validator_value if key not in value]
    if keyword == "dependentRequired":
        return [f"{where(path + [key])}: missing; it is required with {key_path(path + [given])}"
                for given, needed in error.validator_value.items() if given in value
                for key in needed if key not in value]
    if "propertyNames" in error.relative_schema_path:
        return [f"{where(path)}: a key must be {expected(schema)}, got {shown(value)}"]
    if keyword in SIZE_NOUNS:
        least = error.validator_value
        noun = SIZE_NOUNS[keyword][least != 1]
        return [f"{where(path)}: must have at least {least} {noun}, got {shown(value)}"]
    if keyword == "uniqueItems":
        return [f"{where(path)}: must not repeat an item, got {shown(value)}"]
    if keyword in ("type", "enum", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
                   "minLength"):
        return [f"{where(path)}: must be {expected(schema)}, got {shown(value)}"]
    # a keyword the schema does not use today: jsonschema's own message, kept to one line
    return [f"{where(path)}: {_one_line(error.message)}"]


def where(path) -> str:
    """``config a.b[2].c``: how a problem names the value at ``path``."""
    return f"config {key_path(path)}" if path else "config"


def key_path(path) -> str:
    """``a.b[2].c``: the keys and list positions from the top of the config to a value; a key
    other than a plain word is quoted (``a['my key']``), so that the problem stays one line."""
    text = "".join(f"[{part}]" if isinstance(part, int) else
                   f".{part}" if PLAIN_KEY.fullmatch(str(part)) else f"[{str(part)!r}]"
                   for part in path)
    return text.removeprefix(".")


def expected(schema: dict) -> str:
    """What ``schema`` asks of a value, in words: its ``title``, or its type and bounds
    ("an integer from 1 to 1000", "a number strictly between 0 and 1", "one of a, b")."""
    if "title" in schema:
        return schema["title"]
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    types = schema.get("type", [])
    types = [types] if isinstance(types, str) else types
    words = " or ".join(TYPE_WORDS[kind] for kind in types) or "a valid value"
    if types in (["integer"], ["number"]):
        return words + _range_words(schema)
    if types == ["string"] and schema.get("minLength") == 1:
        return "a non-empty string"
    return words


def _range_words(schema: dict) -> str:
    """The bounds of a numeric schema in words (empty without any)."""
    low, high = schema.get("minimum"), schema.get("maximum")
    open_low, open_high = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    if open_low is not None and open_high is not None:
        return f" strictly between {open_low} and {open_high}"
    if low is not None and high is not None:
        return f" from {low} to {high}"
    if open_low is not None:
        return f" above {open_low}"
    if low is not None:
        return f" of at least {low}"
    if high is not None:
        return f" of at most {high}"
    return ""


def _suggestion(key, known: list) -> str:
    """The closest known key (a misspelling), or all of them."""
    close = difflib.get_close_matches(str(key), known, n=1)
    if close:
        return f"did you mean {close[0]}?"
    return "expected one of " + ", ".join(known) if known else "none is expected here"


def shown(value) -> str:
    """``value`` as a problem shows it: Python's repr (nan, inf, 'five'), YAML's words for
    true, false and null, cut to :data:`SHOWN_LENGTH` characters."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null (no value)"
    text = repr(value)
    return text if len(text) <= SHOWN_LENGTH else text[:SHOWN_LENGTH - 3] + "..."


def _one_line(text: str) -> str:
    return " ".join(text.split())[:2 * SHOWN_LENGTH]


# --- the whole config ------------------------------------------------------------------------
def check_config(config: dict, schema: dict, base_dir) -> dict:
    """Check ``config`` against ``schema`` (filling in its defaults), then each section's own
    checks (the bootstrap tests' by :func:`hiddenbn.experiments.blrt.check_config`, which reads
    their data files); return the studies normalised
    (:func:`hiddenbn.experiments.studies.check_config`, whose relative file names are read from
    ``base_dir``), the one section the rules read in that form.

    Raises :class:`ConfigError` with every schema problem, or the first problem a section's
    check finds (those assume a config that fits the schema), as a
    :class:`~hiddenbn.errors.HiddenbnError` naming its key.
    """
    problems = schema_problems(config, schema)
    if problems:
        raise ConfigError(problems)
    check_sections(config)
    bootstrap_tests.check_config(config.get("blrt", {}), base_dir)
    return user_studies.check_config(config.get("studies", {}), base_dir)


def check_sections(config: dict) -> None:
    """The checks of each paper's section, and between sections, that a schema cannot make:
    every paper of the registry (:data:`hiddenbn.experiments.papers.PAPERS`, in its order)
    whose section the config has and whose module checks it
    (:class:`~hiddenbn.experiments.papers.ChecksItsSection`)."""
    for paper in PAPERS.values():
        if paper.name in config:
            module = paper.experiment()
            if isinstance(module, ChecksItsSection):
                module.check_config(config[paper.name], *(config.get(name)
                                                          for name in paper.reads))


#: The workflow config's JSON Schema: package data of :mod:`hiddenbn.experiments`, where the
#: sections it describes are checked, read by the workflow (workflow/rules/common.smk) and by
#: ``hiddenbn check-config`` alike, so an installed wheel checks a config as a clone does.
SCHEMA_FILE = "config.schema.yaml"


def read_schema() -> dict:
    """The workflow config's JSON Schema (:data:`SCHEMA_FILE`), parsed."""
    schema = resources.files("hiddenbn.experiments").joinpath(SCHEMA_FILE)
    return yaml.safe_load(schema.read_text(encoding="utf-8"))


def check_config_file(path) -> ConfigCheckResult:
    """Check a workflow config file as the workflow does before any job: ``hiddenbn
    check-config``.

    The file is parsed (:func:`read_config_file`: a YAML syntax error names its line), checked
    against the schema with every number finite, then by each section's own checks
    (:func:`check_config`, relative study files read from the file's folder). Snakemake reads
    a ``--configfile`` in its own command line before the workflow starts, and its message for
    a YAML syntax error names neither the file nor the line, so a config of one's own is best
    checked by this first (``make reproduce CONFIG=...`` does).

    Parameters
    ----------
    path : str or path-like
        The config file (YAML or JSON).

    Returns
    -------
    ConfigCheckResult
        The config with the schema's defaults filled in (:meth:`~ConfigCheckResult.to_dict`),
        its ``results_dir``, and the line ``check-config`` prints.

    Raises
    ------
    ConfigError
        Every problem, one line each, naming its key (or the file's line).

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import hiddenbn
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "my.yaml").write_text("seed: 3", encoding="utf-8")
    >>> result = hiddenbn.check_config_file(folder / "my.yaml")
    >>> result.results_dir, result.to_dict()["seed"]
    ('results', 3)
    >>> _ = (folder / "bad.yaml").write_text("seed: -1", encoding="utf-8")
    >>> hiddenbn.check_config_file(folder / "bad.yaml")
    Traceback (most recent call last):
    ...
    hiddenbn.errors.ConfigError: config seed: must be an integer of at least 0, got -1
    """
    config = read_config_file(path)
    if not isinstance(config, dict):
        raise ConfigError([f"config file {path}: must be a mapping of sections (results_dir, "
                           f"seed, a paper's or studies' section), got {shown(config)}; "
                           "start from config/config.yaml"])
    schema = read_schema()
    check_config(config, schema, Path(path).resolve().parent)
    return ConfigCheckResult(config, path)


@contextmanager
def exit_on_config_error():
    """Run the block; on a :class:`~hiddenbn.errors.HiddenbnError` print it (one line per
    problem) to stderr and exit with status 2. Snakemake then stops before any job with these
    lines alone, where an exception would add its traceback through the Snakefile."""
    try:
        yield
    except HiddenbnError as error:
        print(error, file=sys.stderr)
        sys.exit(2)

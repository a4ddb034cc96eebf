"""config/README.md says what the schema, the config files and the SLURM profile say.

Each key is a bullet, ``- `key` (required): ...``, ``(optional, default `5`)`` or ``(required
with `study`)``, under the heading of its section; the bullets of a section must be the schema's
keys of that section, required where the schema requires them, with the schema's defaults.
"""

import importlib.util
import re

import pytest
import yaml
from test_workflow import REPO

from hiddenbn.experiments.studies import DEFAULT_EM, FAMILIES, METRICS
from hiddenbn.experiments.workflow_config import read_schema
from hiddenbn.learning.selection import SELECTION_SCORE_NAMES
from hiddenbn.util.defaults import SCHEDULE

README = (REPO / "config" / "README.md").read_text()
SCHEMA = read_schema()
PROFILE = yaml.safe_load((REPO / "workflow" / "profiles" / "slurm" / "config.yaml").read_text())
#: A key's bullet: its name, then whether it is required and its default.
KEY_BULLET = re.compile(r"^- `([\w-]+)` \(([^)]*)\):", re.MULTILINE)
#: The sections of the papers: every top-level key holding a mapping of settings but the studies.
PAPER_SECTIONS = [name for name, entry in SCHEMA["properties"].items()
                  if "properties" in entry]


def section(heading: str) -> str:
    """The text under the heading that starts with ``heading`` (``## Top-level keys``), up to the
    next heading of its level or above."""
    level = heading.split()[0]
    match = re.search(rf"^{re.escape(heading)}.*\n((?:(?!#{{1,{len(level)}}} ).*\n)*)", README,
                      re.MULTILINE)
    assert match, f"config/README.md has no heading {heading!r}"
    return match[1]


def bullets(text: str) -> dict:
    """Key -> what its bullet says (past the first colon), for each bullet of ``text`` that
    starts with a key."""
    items = re.split(r"\n(?=- )", text)
    return {found[1]: item.split(":", 1)[1] for item in items
            if (found := re.match(r"- `([\w-]+)`", item))}


def shown(value) -> str:
    """A default as YAML writes it."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def check_keys(text: str, entry: dict, where: str) -> None:
    """The key bullets of ``text`` are the keys of the schema ``entry``, each marked required,
    required with another key, or optional with the schema's default."""
    said = dict(KEY_BULLET.findall(text))
    keys = entry["properties"]
    assert set(said) == set(keys), f"{where}: README names {sorted(set(said) - set(keys))}, " \
        f"lacks {sorted(set(keys) - set(said))}"
    dependent = {key: owner for owner, needed in entry.get("dependentRequired", {}).items()
                 for key in needed}
    for key, status in said.items():
        if key in entry.get("required", []):
            expected = "required"
        elif key in dependent:
            expected = f"required with `{dependent[key]}`"
        elif "default" in keys[key]:
            expected = f"optional, default `{shown(keys[key]['default'])}`"
        else:
            expected = "optional"
        assert status == expected, f"{where}.{key}: README says {status!r}, the schema {expected!r}"


def test_every_config_file_is_described():
    described = section("## The config files")
    for path in sorted((REPO / "config").iterdir()):
        if path.name != "README.md":
            name = path.name + ("/" if path.is_dir() else "")
            assert f"- `{name}`" in described, f"config/README.md does not describe {name}"


def test_the_schema_it_names_is_the_one_the_package_reads():
    path, = set(re.findall(r"`(src/hiddenbn/\S+\.schema\.yaml)`", README))
    assert yaml.safe_load((REPO / path).read_text()) == SCHEMA


def test_every_top_level_key_is_described():
    check_keys(section("## Top-level keys"), SCHEMA, "config")


@pytest.mark.parametrize("name", PAPER_SECTIONS)
def test_every_key_of_a_paper_section_is_described(name):
    check_keys(section(f"### `{name}`"), SCHEMA["properties"][name], name)


def test_every_key_of_a_study_is_described():
    check_keys(section("## Your own studies"), SCHEMA["properties"]["studies"]
               ["additionalProperties"], "studies.<study>")


def test_every_em_setting_is_described():
    described = bullets(section("## EM settings"))
    assert set(described) == set(SCHEMA["$defs"]["em"]["properties"])


def test_every_key_of_a_bootstrap_test_is_described():
    check_keys(section("## Bootstrap tests"), SCHEMA["properties"]["blrt"]["additionalProperties"],
               "blrt")


#: The sections of many named entries, by the heading that describes an entry.
ENTRY_SECTIONS = {"studies": "## Your own studies", "blrt": "## Bootstrap tests"}


@pytest.mark.parametrize("name", [*PAPER_SECTIONS, *ENTRY_SECTIONS])
def test_each_em_names_the_settings_its_section_takes(name):
    entry = SCHEMA["properties"][name]
    if name in ENTRY_SECTIONS:
        entry, heading = entry["additionalProperties"], ENTRY_SECTIONS[name]
    else:
        heading = f"### `{name}`"
    if "em" not in entry["properties"]:
        return
    settings = set(SCHEMA["$defs"]["em"]["properties"])
    named = set(re.findall(r"`(\w+)`", bullets(section(heading))["em"])) & settings
    assert named == set(entry["properties"]["em"]["propertyNames"]["enum"]), name


def test_the_lists_of_a_study_are_the_librarys():
    study = bullets(section("## Your own studies"))
    assert re.findall(r"`(\w+)`", study["scores"]) == list(SELECTION_SCORE_NAMES)
    assert re.findall(r"`(\w+)` \(", study["metrics"]) == list(METRICS)
    assert re.findall(r"`(\w+)` \(", study["family"]) == list(FAMILIES)
    defaults = study["em"].split("gives none", 1)[1]
    said = {key: yaml.safe_load(value) for key, value
            in re.findall(r"`(\w+): ([^`]+)`", defaults)}
    assert said == DEFAULT_EM and said["schedule"] == SCHEDULE


def test_the_slurm_part_names_the_profiles_settings():
    described = section("## Running on a SLURM cluster")
    for key in (*PROFILE["default-resources"], "set-resources", "set-threads", "groups",
                "group-components", "jobs"):
        assert f"`{key}`" in described, key
    assert f"`{PROFILE['default-resources']['slurm_partition']}` as shipped" in described


def test_every_file_and_module_it_names_exists():
    named = re.findall(r"`((?:config|docs|src|tools|workflow)/[^`<*]+)`", README)
    assert named
    for path in named:
        assert (REPO / path).exists(), f"config/README.md names {path}, which does not exist"
    for module in re.findall(r"`(hiddenbn(?:\.\w+)+)`", README):
        assert importlib.util.find_spec(module), f"config/README.md names {module}: no module"

"""mypy checks the package `kite` through the links in .mypy/kite (it cannot follow setuptools' editable finder):
a module without its link would never be type-checked, and the gate in .ci/run would pass without it."""

import tomllib

from conftest import REPO

LINKS = REPO / ".mypy"


def package_dirs() -> dict[str, str]:
    settings = tomllib.loads((REPO / "pyproject.toml").read_text())
    return settings["tool"]["setuptools"]["package-dir"]


def test_every_package_of_the_install_is_where_mypy_looks():
    for package, folder in package_dirs().items():
        if package == "kite":  # a folder of links, one per module (below): kite.cli is not in compiler/
            continue
        seen = LINKS.joinpath(*package.split("."))
        assert seen.resolve() == (REPO / folder).resolve(), f"{package}: link .mypy/{'/'.join(package.split('.'))} to {folder}/"


def test_every_module_of_the_top_package_has_its_link():
    top = REPO / package_dirs()["kite"]
    missing = sorted(path.name for path in top.glob("*.py") if (LINKS / "kite" / path.name).resolve() != path.resolve())
    assert not missing, f"mypy does not see {missing}: ln -s ../../{top.name}/NAME.py .mypy/kite/"


def test_no_link_points_nowhere():
    dangling = sorted(path.name for path in (LINKS / "kite").iterdir() if not path.exists())
    assert not dangling, f"links to nothing in .mypy/kite: {dangling}"

"""Packaging hook: a wheel carries the shipped release as package data.

``pyproject.toml`` holds the project's metadata; this file only adds one build step. When
setuptools builds the packages for a wheel (not for an editable install), the newest
release under ``rulebank/releases`` (an exact ``rNNNN`` name) is copied into
``verifier_runtime/_shipped/releases/rNNNN``, where ``load_verifier()`` finds it in an
installed package. A build without a release fails: an installed verifier without its
rules would be a silent empty library.
"""

import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def shipped_release() -> Path:
    found = sorted((int(p.name[1:]), p) for p in (ROOT / "rulebank" / "releases").glob("r*")
                   if re.fullmatch(r"r\d{4,}", p.name) and (p / "manifest.json").is_file())
    if not found:
        raise SystemExit("no release under rulebank/releases: build one with `autoverifier rules build`")
    return found[-1][1]


class BuildWithRelease(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return  # an editable install reads rulebank/ of the checkout directly
        release = shipped_release()
        dest = Path(self.build_lib) / "verifier_runtime" / "_shipped" / "releases" / release.name
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(release, dest)


setup(cmdclass={"build_py": BuildWithRelease})

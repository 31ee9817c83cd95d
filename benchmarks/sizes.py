"""FMU sizes: the file, extracted, and what each part of it takes.

    python benchmarks/sizes.py FMU [--json PATH]

The FMU's kind comes from its contents: native (``resources/native.bin``), standalone
(``resources/standalone/``) or development. Each member of the zip is counted in a part:

  native       ``binaries/<platform>``, ``resources/native.bin``, ``modelDescription.xml``,
               ``other``; and the kernels' objects the libraries were linked from, from the
               most recently written folder of the native build's cache (docs/native.md)
  standalone   ``site-packages/<package>`` (a package's ``.libs`` folder, e.g. NumPy's
               OpenBLAS, counted with it), ``libpython``, ``standard library``, ``kernels``
               (the shipped numba cache) and ``model and runtime`` (everything else)
  development  ``binaries``, ``resources/<top folder>``, ``modelDescription.xml``

with its size extracted (``bytes``), in the zip (``zip_bytes``) and its file count. The report
goes to ``benchmarks/results/size-<kind>.json``, the committed file the docs' figures are
rendered from (tools/update_doc_numbers.py).
"""
from __future__ import annotations

import argparse
import re
import sys
import zipfile
from pathlib import Path

from runner import REPO, provenance, result_path, shown, write_report

SITE_PACKAGES = "/site-packages/"


def kind_of(names) -> str:
    if "resources/native.bin" in names:
        return "native"
    if any(n.startswith("resources/standalone/") for n in names):
        return "standalone"
    return "development"


def part_of(name: str, kind: str) -> str:
    """The part of the FMU a zip member belongs to (see the module's docstring)."""
    if kind == "native":
        if name.startswith("binaries/"):
            return "/".join(name.split("/")[:2])
        return name if name in ("modelDescription.xml", "resources/native.bin") else "other"
    if kind == "standalone":
        if SITE_PACKAGES in name:
            top = name.split(SITE_PACKAGES, 1)[1].split("/", 1)[0]
            return "site-packages/" + re.split(r"[.-]", top, maxsplit=1)[0]
        if name.startswith("resources/standalone/lib/libpython"):
            return "libpython"
        if name.startswith("resources/standalone/python/"):
            return "standard library"
        if name.startswith("resources/standalone/numba-cache/"):
            return "kernels"
        return "model and runtime"
    if name.startswith("resources/"):
        return "/".join(name.split("/")[:2])
    return "binaries" if name.startswith("binaries/") else name


def kernel_objects() -> dict:
    """The kernels' objects in the native build's cache folder written last, by platform and
    instruction-set level (a platform's binary links one per level)."""
    sys.path.insert(0, str(REPO))
    from simon_fmu.native.build import cache_root
    from simon_fmu.native.targets import PLATFORMS

    folders = [f for f in cache_root().glob("*") if f.is_dir() and any(f.glob("kernels-*.o"))]
    if not folders:
        return {}
    folder = max(folders, key=lambda f: max(o.stat().st_mtime for o in f.glob("kernels-*.o")))
    objects = {}
    for platform in PLATFORMS.values():
        for level in platform.levels:
            found = sorted(folder.glob(f"kernels-{platform.triple}-{level.name}-*.o"),
                           key=lambda o: o.stat().st_mtime)
            if found:
                objects.setdefault(platform.folder, {})[level.name] = {
                    "triple": platform.triple, "file": found[-1].name,
                    "bytes": found[-1].stat().st_size}
    return objects


def measure(fmu: Path) -> dict:
    with zipfile.ZipFile(fmu) as z:
        members = [m for m in z.infolist() if not m.is_dir()]
    kind = kind_of({m.filename for m in members})
    parts: dict[str, dict] = {}
    for m in members:
        p = parts.setdefault(part_of(m.filename, kind), {"bytes": 0, "zip_bytes": 0, "files": 0})
        p["bytes"] += m.file_size
        p["zip_bytes"] += m.compress_size
        p["files"] += 1
    report = {"fmu": shown(fmu), "kind": kind, "file_bytes": fmu.stat().st_size,
              "extracted_bytes": sum(m.file_size for m in members),
              "parts": dict(sorted(parts.items(), key=lambda kv: -kv[1]["zip_bytes"]))}
    if kind == "native":
        report["kernel_objects"] = kernel_objects()
    return report


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fmu", type=Path)
    parser.add_argument("--json", type=Path,
                        help="JSON report path (default benchmarks/results/size-<kind>.json)")
    args = parser.parse_args(argv)
    report = {**provenance(), **measure(args.fmu)}
    path = args.json or result_path(f"size-{report['kind']}.json")
    print(f"{args.fmu}: {report['kind']} FMU, {report['file_bytes'] / 2**20:.2f} MB "
          f"({report['extracted_bytes'] / 2**20:.2f} MB extracted; MB = 2^20 bytes)")
    for name, p in report["parts"].items():
        print(f"  {name:<40}{p['zip_bytes'] / 1e3:>10.0f} KB{p['bytes'] / 1e3:>10.0f} KB extracted")
    print(f"wrote {write_report(report, path)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

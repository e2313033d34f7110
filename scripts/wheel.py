#!/usr/bin/env python3
"""Writes the pip wheel of GPU Checkup's server binaries: `checkup` and `checkup-agent` as
the scripts of a platform wheel (as ruff and uv ship theirs), for glibc 2.31 and newer on
x86-64, so `pip install gpu_checkup-VERSION-py3-none-manylinux_2_31_x86_64.whl` puts both
on a GPU host's PATH without root, apt or a download by hand.

    scripts/wheel.py OUT_DIR VERSION CHECKUP CHECKUP_AGENT

Standard library only: the wheel is a zip of the files, their metadata and a RECORD of
their hashes (PEP 427)."""
import base64
import hashlib
import sys
import zipfile
from pathlib import Path

TAG = "py3-none-manylinux_2_31_x86_64"
NAME = "gpu_checkup"


def digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def main() -> int:
    if len(sys.argv) != 5:
        print(__doc__.strip().splitlines()[-4], file=sys.stderr)
        print("usage: scripts/wheel.py OUT_DIR VERSION CHECKUP CHECKUP_AGENT", file=sys.stderr)
        return 2
    out, version, cli, agent = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4])
    for binary in (cli, agent):
        if not binary.is_file():
            print(f"wheel.py: no binary at {binary}", file=sys.stderr)
            return 1
    info = f"{NAME}-{version}.dist-info"
    data = f"{NAME}-{version}.data/scripts"
    readme = Path(__file__).resolve().parent.parent / "README.md"
    files = [
        (f"{NAME}/__init__.py", (
            '"""GPU Checkup\'s server binaries, installed as the scripts `checkup` and\n'
            '`checkup-agent`; this package only says which version they are."""\n'
            f'__version__ = "{version}"\n').encode(), 0o644),
        (f"{data}/checkup", cli.read_bytes(), 0o755),
        (f"{data}/checkup-agent", agent.read_bytes(), 0o755),
        (f"{info}/METADATA", (
            "Metadata-Version: 2.1\n"
            "Name: gpu-checkup\n"
            f"Version: {version}\n"
            "Summary: Says why deep-learning training is slow and what to change: the checkup agent and CLI for GPU hosts\n"
            "License: MIT\n"
            "Requires-Python: >=3.8\n"
            "Description-Content-Type: text/markdown\n\n"
            + (readme.read_text(encoding="utf-8") if readme.is_file() else "")).encode(), 0o644),
        (f"{info}/WHEEL", (
            "Wheel-Version: 1.0\n"
            "Generator: gpu-checkup scripts/wheel.py\n"
            "Root-Is-Purelib: false\n"
            f"Tag: {TAG}\n").encode(), 0o644),
    ]
    record = "".join(f"{path},{digest(body)},{len(body)}\n" for path, body, _ in files)
    record += f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode(), 0o644))
    out.mkdir(parents=True, exist_ok=True)
    wheel = out / f"{NAME}-{version}-{TAG}.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as z:
        for path, body, mode in files:
            entry = zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0))
            entry.external_attr = (0o100000 | mode) << 16
            entry.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(entry, body)
    print(wheel)
    return 0


if __name__ == "__main__":
    sys.exit(main())

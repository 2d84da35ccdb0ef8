"""Measure a real host-vs-accelerator pair with OpenSSL's ``speed`` command.

The LogCA thesis (section 3.3, Table 3.2) measured AES with and without the
Sandy Bridge AES-NI instructions.  This collector does the same on the
machine it runs on, for AES-128-CTR (AES-NI) and SHA-256 (SHA-NI):

* "accelerated" time: ``openssl speed -evp ALG -bytes G`` as shipped, which
  uses the CPU's AES-NI / SHA-NI instructions when present;
* "host" time: the same command with the instruction masked through the
  ``OPENSSL_ia32cap`` environment variable, so OpenSSL falls back to its
  best software path (vector-permute AES, AVX2 SHA-256): only the one
  accelerating instruction is taken away.

Masks (OpenSSL's ia32cap layout): AES-NI is bit 57 of the first capability
word (``~0x200000000000000``); SHA-NI is bit 29 of CPUID leaf 7 EBX, the low
half of the second word (``:~0x20000000``).

``speed -mr`` prints ``+F:<n>:<alg>:<bytes per second>``; the time of one
offload of ``g`` bytes is ``g / rate``.  Host and accelerated runs are
interleaved per granularity and repeat, so machine drift hits both alike.
The output is the offload timing table ``kernel, granularity_bytes, repeat,
host_s, accel_s`` plus the CPU model, clock and OpenSSL version.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
from collections.abc import Callable

import pandas as pd

from modeling.errors import ConfigError, DataError

# kernel name -> (openssl -evp algorithm, OPENSSL_ia32cap mask, /proc/cpuinfo flag)
KERNELS = {
    "aes-128-ctr": ("aes-128-ctr", "~0x200000000000000", "aes"),
    "sha-256": ("sha256", ":~0x20000000", "sha_ni"),
}
GRANULARITIES = tuple(16 * 2**k for k in range(22))  # 16 B ... 32 MiB

_RATE = re.compile(r"^\+F:\d+:[^:]+:([0-9.eE+-]+)\s*$", re.MULTILINE)


def parse_speed_output(text: str, nbytes: int) -> float:
    """Seconds per operation of ``nbytes`` from ``openssl speed -mr`` output."""
    found = _RATE.findall(text)
    if not found:
        raise DataError("openssl speed printed no '+F:' throughput line; is this OpenSSL 1.1 or newer?")
    rate = float(found[-1])
    if rate <= 0:
        raise DataError(f"openssl speed reported a throughput of {rate} bytes/s for {nbytes} B.")
    return nbytes / rate


def speed_once(algorithm: str, nbytes: int, seconds: int = 1, mask: str | None = None,
               openssl: str = "openssl") -> float:
    """Run one ``openssl speed`` measurement; return seconds per ``nbytes`` offload."""
    env = {k: v for k, v in os.environ.items() if k != "OPENSSL_ia32cap"}
    if mask:
        env["OPENSSL_ia32cap"] = mask
    cmd = [openssl, "speed", "-evp", algorithm, "-bytes", str(nbytes), "-seconds", str(seconds), "-mr"]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=60 + 4 * seconds)
    if done.returncode != 0:
        raise DataError(f"{' '.join(cmd)} failed: {done.stderr.strip()[:300]}")
    return parse_speed_output(done.stdout, nbytes)


def cpu_info() -> dict:
    """CPU model, nominal clock (Hz) and instruction flags from /proc/cpuinfo."""
    model, mhz, flags = platform.processor() or "unknown", None, set()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                key = key.strip()
                if key == "model name" and model in ("unknown", "", "x86_64"):
                    model = value.strip()
                elif key == "cpu MHz" and mhz is None:
                    mhz = float(value)
                elif key == "flags" and not flags:
                    flags = set(value.split())
    except OSError:
        pass
    return {"cpu_model": model, "clock_hz": mhz * 1e6 if mhz else None, "flags": flags}


def collect(kernels=("aes-128-ctr", "sha-256"), granularities=GRANULARITIES, repeats: int = 3,
            seconds: int = 1, openssl: str = "openssl",
            progress: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Measure every kernel at every granularity, ``repeats`` times, host and accelerated."""
    exe = shutil.which(openssl)
    if exe is None:
        raise ConfigError(f"'{openssl}' is not on PATH; install OpenSSL (Debian: apt-get install openssl).")
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown:
        raise ConfigError(f"unknown kernel(s) {unknown}; choose from {sorted(KERNELS)}.")
    if repeats < 1 or seconds < 1:
        raise ConfigError("repeats and seconds must be at least 1.")
    info = cpu_info()
    missing = [k for k in kernels if KERNELS[k][2] not in info["flags"]]
    if info["flags"] and missing:
        raise ConfigError(f"this CPU lacks the instruction for {missing} "
                          f"(no {[KERNELS[k][2] for k in missing]} in /proc/cpuinfo); nothing to compare.")
    version = subprocess.run([exe, "version"], capture_output=True, text=True).stdout.strip()
    rows = []
    total = len(kernels) * len(granularities) * repeats
    for kernel in kernels:
        algorithm, mask, _ = KERNELS[kernel]
        for rep in range(repeats):
            for g in granularities:
                host = speed_once(algorithm, g, seconds, mask, exe)
                accel = speed_once(algorithm, g, seconds, None, exe)
                rows.append({"kernel": kernel, "granularity_bytes": int(g), "repeat": rep,
                             "host_s": host, "accel_s": accel})
                if progress:
                    progress(f"{len(rows)}/{total} {kernel} {g} B repeat {rep}: "
                             f"speedup {host / accel:.2f}")
    frame = pd.DataFrame(rows)
    frame["cpu_model"] = info["cpu_model"]
    frame["clock_hz"] = info["clock_hz"]
    frame["openssl_version"] = version
    return frame.sort_values(["kernel", "granularity_bytes", "repeat"], kind="stable").reset_index(drop=True)

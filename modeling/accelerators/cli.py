"""Command line of the accelerator models: ``logca``.

``python -m modeling logca presets`` lists the thesis presets;
``python -m modeling logca (--preset NAME | --L .. --o .. --C .. --A .. --beta ..
--latency independent|dependent) --granularity 16,64,... [--json]`` evaluates
the model; ``python -m modeling logca fit --csv FILE [--kernel K]`` calibrates.
"""

from __future__ import annotations


def _floats(text: str, what: str) -> list[float]:
    from modeling.errors import ConfigError

    try:
        vals = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise ConfigError(f"{what} must be comma-separated numbers, got {text!r}.") from None
    if not vals:
        raise ConfigError(f"{what} is empty.")
    return vals


def params_from_args(args):
    """A preset, or the five typed parameters plus the latency mode."""
    from modeling.errors import ConfigError
    from modeling.accelerators.logca import LogCAParams
    from modeling.accelerators.presets import preset

    typed = [args.L, args.o, args.C, args.A]
    if args.preset:
        if any(v is not None for v in typed):
            raise ConfigError("give either --preset or --L/--o/--C/--A, not both.")
        return preset(args.preset)
    if any(v is None for v in typed):
        raise ConfigError("give --preset NAME, or all of --L --o --C --A (with --beta, --latency).")
    return LogCAParams(L=args.L, o=args.o, C=args.C, A=args.A, beta=args.beta, latency=args.latency)


def evaluate(p, grans, factor: float = 10.0, threshold: float = 0.2) -> dict:
    """The ``logca`` command's JSON: curve, metrics, bound, regions and cut-offs."""
    from modeling.accelerators.accelerometer import optimization_regions
    from modeling.accelerators.logca import granularities, metrics, speedup

    g = granularities(grans)
    s = metrics(p)
    reg = optimization_regions(p, float(g.min()), float(g.max()) if g.max() > g.min() else float(g.min()) * 2,
                               factor, threshold).cli_json()
    return {"params": s["params"], "granularity": g.tolist(), "speedup": speedup(p, g).tolist(),
            "g1": s["g1"], "g_half": s["g_half"], "g1_thesis": s["g1_thesis"],
            "g_half_thesis": s["g_half_thesis"], "g_a": s["g_a"], "bound": s["bound"],
            "bound_kind": s["bound_kind"], "regions": reg["regions"], "cutoffs": reg["cutoffs"]}


def cmd_logca(args) -> int:
    import json

    from modeling.accelerators.advisor import fmt_bytes

    if args.action == "presets":
        from modeling.accelerators.presets import preset, preset_names

        presets = {name: preset(name) for name in preset_names()}
        if args.json:
            print(json.dumps({k: v.to_dict() for k, v in presets.items()}, indent=2))
        else:
            for name, p in presets.items():
                print(f"{name:40s} L={p.L:<8g} o={p.o:<8g} C={p.C:<6g} A={p.A:<4g} beta={p.beta:<5g} {p.latency}")
        return 0
    if args.action == "fit":
        return cmd_fit(args)
    p = params_from_args(args)
    out = evaluate(p, _floats(args.granularity, "--granularity"), args.factor, args.threshold)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    print(f"{p.latency} latency: L={p.L:g} o={p.o:g} C={p.C:g} A={p.A:g} beta={p.beta:g}")
    print(f"g1 = {fmt_bytes(out['g1'])} (thesis form: {fmt_bytes(out['g1_thesis'])}); "
          f"g_A/2 = {fmt_bytes(out['g_half'])} (thesis form: {fmt_bytes(out['g_half_thesis'])})")
    print(f"bound: {out['bound']:.4g} ({out['bound_kind']}-bound)")
    for g, s in zip(out["granularity"], out["speedup"]):
        print(f"  {fmt_bytes(g):>10s}  speedup {s:.4g}")
    for r in out["regions"]:
        print(f"  region {r['params']:5s} {fmt_bytes(r['from'])} .. {fmt_bytes(r['to'])}")
    return 0


def cmd_fit(args) -> int:
    import json

    from modeling.errors import ConfigError
    from modeling.accelerators.calibrate import fit_table
    from modeling.tables.reading import read_table

    if not args.csv:
        raise ConfigError("logca fit needs --csv FILE (kernel,granularity_bytes,repeat,host_s,accel_s).")
    res = fit_table(read_table(args.csv).frame, args.kernel, args.clock_hz, args.fix_A, args.fix_L,
                    args.latency_mode).to_dict()
    if args.json:
        print(json.dumps(res, indent=2))
        return 0
    print(f"{res['kernel']}: {res['latency']} latency, clock {res['clock_hz'] / 1e9:.3g} GHz "
          f"({res['clock_source']})")
    print(f"L={res['L']:.4g} {res['units']['L']}  o={res['o']:.4g} cycles  C={res['C']:.4g}  A={res['A']:.4g}  "
          f"beta={res['beta']:.4g}  mean APE on speedup {res['mape_speedup']:.2f} %")
    for mode, m in res["modes"].items():
        print(f"  {mode:11s} AIC {m['aic']:.1f}  mean APE {m['mape_speedup']:.2f} %")
    return 0


def add_parsers(sub) -> None:
    lg = sub.add_parser("logca", help="LogCA presets, speedup curves, regions and calibration")
    lg.add_argument("action", nargs="?", default="eval", choices=["eval", "presets", "fit"],
                    help="eval (default): evaluate parameters; presets: list; fit: calibrate from --csv")
    lg.add_argument("--preset")
    for name in ("L", "o", "C", "A"):
        lg.add_argument(f"--{name}", type=float, default=None)
    lg.add_argument("--beta", type=float, default=1.0)
    lg.add_argument("--latency", default="independent", choices=["independent", "dependent"])
    lg.add_argument("--granularity", default=",".join(str(16 * 4**k) for k in range(11)),
                    help="comma-separated bytes (default 16,64,...,16 MiB)")
    lg.add_argument("--factor", type=float, default=10.0, help="improvement factor of the sensitivity analysis")
    lg.add_argument("--threshold", type=float, default=0.2, help="gain that puts a parameter in a region")
    lg.add_argument("--csv", help="timing table for fit")
    lg.add_argument("--kernel", help="kernel of the timing table to fit")
    lg.add_argument("--clock-hz", type=float, default=None, help="clock for seconds -> cycles")
    lg.add_argument("--fix-A", type=float, default=None, help="hold A (e.g. a peak-throughput ratio)")
    lg.add_argument("--fix-L", type=float, default=None, help="hold L (e.g. 1 / bandwidth)")
    lg.add_argument("--latency-mode", default=None, choices=["independent", "dependent"],
                    help="fit only this latency mode (default: both, best AIC)")
    lg.add_argument("--json", action="store_true")
    lg.set_defaults(func=cmd_logca)

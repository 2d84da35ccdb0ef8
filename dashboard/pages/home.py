"""Home: what each page answers, and the data perfcast ships with (with attribution)."""

import dash
from dash import dcc, html

from dashboard.ui.components import grid, register_csv

from modeling import shipped

dash.register_page(__name__, path="/", name="Home", title="perfcast", order=0)
register_csv("home-devices-table")


def layout(**_query):
    dev = shipped.devices()
    w = shipped.workloads()
    apps = w.groupby("application")["workload"].count().to_dict()
    return html.Div([
        html.H1("How fast will the next GPU generation be on our workloads?"),
        html.P("perfcast predicts a target GPU's run time from counters measured on the GPU you have today, with "
               "the regression ensemble of HALWPE and RastSim: OLS, NNLS, stepwise AIC/BIC, Lasso, Elastic Net and "
               "Random Forest, judged out of fold by random and grouped cross-validation. Every view's inputs "
               "live in its link: share it and a colleague sees the same numbers.", className="lead"),
        html.Div([dcc.Link([html.Strong(p["name"]), html.Span(p["description"])], href=p["relative_path"],
                           className="page-link-card", id=f"home-link-{p['name'].lower()}")
                  for p in sorted(dash.page_registry.values(), key=lambda p: p.get("order", 99))
                  if p["path"] != "/"], className="page-links"),
        html.H2("Shipped data"),
        html.P(f"{len(w)} workloads (Rodinia kernel × input size): "
               + ", ".join(f"{a} {n}" for a, n in sorted(apps.items()))
               + f"; {len(shipped.counters())} nvprof counters measured on each of {len(dev)} GPUs."),
        grid("home-devices-table", [{"field": c, "headerName": c.replace("_", " "),
                                     "minWidth": 180 if c == "chip" else 110} for c in dev.columns],
             rows=dev.astype(object).where(dev.notna(), None).to_dict("records"), height=330,
             file_name="gpu_devices.csv"),
        html.P(["GPU profiles: gpuperfpredict by Marcos Amaris et al. (University of São Paulo), "
                "CC BY 4.0; aggregated by perfcast (see data/README.md). Device figures: public "
                "vendor specifications. Methods: HALWPE (cross-generation GPU prediction) and RastSim "
                "(GPU estimation from a software rasterizer). Accelerator presets: LogCA and Accelerometer "
                "(Table 4.3 of the thesis); measured timings: OpenSSL speed on this project's build machine. "
                "Count prediction (BB-ML): basic-block counts of 16 C kernels measured here with GCC coverage, and "
                "nvprof event counts of the Rodinia kernels from the same gpuperfpredict profiles."],
               className="attribution"),
        html.P("Command line: python -m modeling ensemble --host GTX-680 --target Tesla-P100 --models rastsim",
               className="cmd"),
    ])

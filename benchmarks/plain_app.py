"""The simplest Dash app that draws one chart: Dash's defaults, no sign-in, no callbacks.

``benchmarks/shared_link.py --results`` serves it with gunicorn beside the project's server and opens both in
turns: the figure it draws is the result page's own first chart (the JSON file named by
``PERFCAST_PLAIN_FIGURE``), so both draw a chart of the same shape.

    cd benchmarks && PERFCAST_PLAIN_FIGURE=fig.json gunicorn plain_app:server
"""

import json
import os

from dash import Dash, dcc, html

with open(os.environ["PERFCAST_PLAIN_FIGURE"]) as f:
    FIGURE = json.load(f)

app = Dash(__name__)
app.layout = html.Div([html.H1("One chart"), dcc.Graph(id="plain-graph", figure=FIGURE)])
server = app.server

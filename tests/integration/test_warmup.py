"""A starting server worker lays out every page once (gunicorn.conf.py): none fails, and what the pages read
from disk is loaded afterwards."""

import logging


def test_every_page_lays_out_and_the_shipped_tables_are_loaded(perfcast_app, caplog):
    from dashboard.warmup import lay_out_every_page
    from modeling.counts import data as countdata

    countdata.shipped.cache_clear()
    with caplog.at_level(logging.ERROR, logger="perfcast"):
        seconds = lay_out_every_page(perfcast_app.server)
    assert seconds > 0
    assert not [r for r in caplog.records if "warming up" in r.getMessage()]
    assert countdata.shipped.cache_info().currsize >= 1  # /counts read its default table

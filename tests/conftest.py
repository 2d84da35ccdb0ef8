import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests import signed_in  # noqa: E402

signed_in.environment()  # before anything imports dashboard.settings or the app


import pytest  # noqa: E402

# ---------------------------------------------------------------- the test tiers (pytest.ini's markers)

# A test that uses one of these fixtures, or runs with one of these parameters (a fixture parametrized over
# the job backends or the databases), needs a service started by the test session: Redis, Celery workers,
# PostgreSQL or the OpenID Connect provider (./test.sh installs them).
SERVICE_FIXTURES = {"redis_server", "redis_url", "postgres_server", "postgres_url", "sso"}
SERVICE_PARAMS = {"redis", "postgresql"}
# The slowest tests outside the browser tier: those that cost 1.5 s of CPU or more, measured with
# ``./test.sh --fast -p tests.cputime`` (the command line's subprocess smoke tests stay in the fast tier). Node
# ids relative to tests/; a prefix (a module, a test without its parameters) marks every test under it.
# docs/testing.md states how many entries there are (tests/test_docs.py checks it).
SLOW = (
    "dashboard/counts/test_count_results.py::test_a_saved_counts_prediction_reads_back_typed_with_its_provenance",
    "dashboard/counts/test_count_results.py::test_every_counts_job_result_round_trips_through_the_codec_as_its_types[countspredict]",
    "dashboard/counts/test_count_sources.py::test_a_count_table_upload_is_stored_by_content_and_runs",
    "dashboard/counts/test_count_sources.py::test_predict_at_new_inputs_validates_on_the_server_and_exports_with_provenance",
    "dashboard/counts/test_count_views.py::test_every_range_has_its_level_beside_it_and_an_unsupported_level_is_said",
    "dashboard/crossgen/test_compare_kind.py::test_a_saved_scenario_whose_dataset_is_gone_is_refused_with_its_name",
    "dashboard/crossgen/test_compare_kind.py::test_by_default_the_earlier_of_the_two_newest_saves_is_a",
    "dashboard/crossgen/test_compare_kind.py::test_compare_two_saved_scenarios",
    "dashboard/crossgen/test_compare_kind.py::test_the_compare_report_carries_both_leaderboards_and_the_names",
    "dashboard/crossgen/test_leaderboard.py::test_unseen_applications_the_baseline_wins_and_the_star_says_so",
    "dashboard/jobs/test_process_groups.py::test_an_abandoned_job_stops_its_workers",
    "dashboard/newapp/test_newapp_job.py::test_an_upload_with_applications_runs_and_names_the_missing_roofline",
    "dashboard/newapp/test_newapp_job.py::test_result_merge_and_figures",
    "dashboard/phases/test_new_program.py::test_the_job_gives_the_librarys_numbers_and_exports_with_provenance",
    "dashboard/phases/test_phase_views.py::test_the_new_programs_report_holds_its_trace_and_provenance",
    "dashboard/plan/test_plan_views.py::test_a_batchs_results_make_a_new_version_and_the_next_round_says_what_changed",
    "dashboard/plan/test_plan_views.py::test_the_page_shows_what_the_library_plans",
    "dashboard/predict/test_predict_work.py::test_a_baseline_that_wins_and_an_unsupported_interval_are_said_in_words",
    "dashboard/predict/test_predict_work.py::test_an_uploaded_table_is_predicted_and_its_target_never_read",
    "dashboard/state/test_upload_limits.py::test_a_large_cr_only_file_gets_the_right_message_or_reads",
    "dashboard/state/test_upload_limits.py::test_a_parquet_file_that_declares_too_many_cells_is_refused_before_loading",
    "dashboard/state/test_upload_memory.py::test_a_csv_of_many_short_numbers_is_read_within_a_few_times_its_size",
    "modeling/counts/test_count_models.py::test_glm_and_network_recover_a_planted_log_linear_poisson_mean",
    "modeling/counts/test_count_predict.py::test_cli_json_equals_the_library_and_the_export_has_provenance",
    "modeling/counts/test_count_predict.py::test_the_glm_reproduces_a_monomial_by_hand_and_best_picks_it",
    "modeling/counts/test_count_predict.py::test_the_held_out_counts_are_never_read",
    "modeling/counts/test_count_predict.py::test_the_old_counts_command_still_works",
    "modeling/counts/test_count_predict.py::test_the_range_rule_is_a_conformal_quantile_of_held_out_errors_per_distance",
    "modeling/counts/test_count_unseen.py::test_a_4x4_grid_gives_ranges_at_90_percent_from_inputs_held_out_one_by_one",
    "modeling/counts/test_count_unseen.py::test_a_floor_block_is_explained_as_a_step_in_the_size_it_depends_on",
    "modeling/counts/test_count_unseen.py::test_ranges_beyond_a_small_grid_cover_about_their_stated_level",
    "modeling/counts/test_count_unseen.py::test_too_few_inputs_print_the_level_they_support_and_say_so",
    "modeling/crossgen/test_ensemble.py::test_permuted_targets_give_no_skill",
    "modeling/crossgen/test_predict.py::test_recommended_is_chosen_with_the_baseline_among_the_candidates",
    "modeling/crossgen/test_predict.py::test_too_few_measured_workloads_for_the_cross_validation_are_refused_saying_what_to_change",
    "modeling/crossgen/test_predictor.py::test_a_fitted_predictor_gives_what_a_whole_run_gives[kwargs3]",
    "modeling/crossgen/test_racing.py::test_bounded_search_picks_and_scores_as_the_exhaustive_search_in_any_order",
    "modeling/crossgen/test_racing.py::test_bounded_search_picks_what_the_exhaustive_search_picks_on_the_shipped_data",
    "modeling/crossgen/test_racing.py::test_race_keeps_the_exhaustive_winner_with_its_scores_on_a_planted_table",
    "modeling/crossgen/test_racing.py::test_race_picks_what_the_exhaustive_search_picks_on_the_shipped_data",
    "modeling/crossgen/test_racing.py::test_recommended_for_new_applications_is_bounded_and_predicts_as_the_exhaustive_procedure",
    "modeling/crossgen/test_racing.py::test_recommended_for_new_applications_on_the_shipped_data_is_the_exhaustive_procedure",
    "modeling/crossgen/test_racing.py::test_recommended_prediction_races_says_so_and_matches_the_exhaustive_procedure",
    "modeling/crossgen/test_regularized.py::test_a_rerun_gives_the_same_errors_and_column_order_does_not_matter",
    "modeling/crossgen/test_unseen.py::test_a_baseline_that_truly_wins_is_used_and_the_result_says_so_with_both_errors",
    "modeling/crossgen/test_unseen.py::test_too_few_training_applications_use_the_baseline_without_comparing_and_say_so",
    "modeling/phases/test_armpm.py::test_the_shipped_phase_tables_are_what_the_command_builds",
    "modeling/phases/test_predict_new_program.py::test_cli_json_equals_the_library",
    "modeling/phases/test_predict_new_program.py::test_the_predicted_programs_target_is_never_read",
    "modeling/tables/test_reading_and_cli.py::test_a_parquet_bomb_is_refused_before_it_is_materialized",
    "modeling/tables/test_reading_and_cli.py::test_cli_json_on_the_shipped_data",
    "modeling/test_parallel.py::test_stopping_while_workers_write_results_never_hangs",
    "modeling/test_shipped_data.py::test_build_is_deterministic_and_matches_shipped",
)


def pytest_collection_modifyitems(config, items):
    """Mark each test with its tier: ``browser`` (tests/integration: headless Chromium, live servers),
    ``services`` (Redis, Celery, PostgreSQL, the OIDC provider), ``slow`` (:data:`SLOW`). The fast tier,
    ``./test.sh --fast``, is every test with none of the three."""
    tests_dir = Path(__file__).resolve().parent
    for item in items:
        path = Path(item.path).resolve()
        rel = path.relative_to(tests_dir).as_posix() if path.is_relative_to(tests_dir) else path.name
        if rel.startswith("integration/"):
            item.add_marker(pytest.mark.browser)
        params = getattr(getattr(item, "callspec", None), "params", {})
        if SERVICE_FIXTURES & set(item.fixturenames) or SERVICE_PARAMS & {
                v for v in params.values() if isinstance(v, str)} or rel.startswith(("oidc/", "integration/scaleout/")):
            item.add_marker(pytest.mark.services)
        node = rel + item.nodeid[item.nodeid.find("::"):] if "::" in item.nodeid else rel
        if node.startswith(SLOW):
            item.add_marker(pytest.mark.slow)


# ---------------------------------------------------------------- a real Redis for the redis job backend


@pytest.fixture(scope="session")
def redis_server():
    """Debian's redis-server (installed by ./test.sh) on a free loopback port, no persistence (testkit/servers.py,
    which benchmarks/load.py uses too); stopped by its process group at the end of the session. Yields its URL."""
    import shutil

    from testkit.servers import start_redis, stop_group

    assert shutil.which("redis-server"), "redis-server is not installed (./test.sh installs Debian's redis-server)"
    proc, url = start_redis()
    try:
        yield url
    finally:
        stop_group(proc)


@pytest.fixture()
def redis_url(redis_server):
    """The session's Redis, emptied for this test."""
    import redis

    redis.Redis.from_url(redis_server).flushall()
    return redis_server


# ---------------------------------------------------------------- the signed-in user (tests/signed_in.py)


@pytest.fixture(scope="session", autouse=True)
def signed_in_user():
    """The test session's account and session in its database, and benchmarks' DashClient signing in with it."""
    from testkit import signin

    signed_in.seed()
    signin.DEFAULT_ACCOUNT = signin.Account(signed_in.NAME, signed_in.PASSWORD)
    return signed_in


@pytest.fixture(autouse=True)
def fresh_refusal_counts(monkeypatch):
    """Each test counts strangers' refusals from zero (dashboard/audit_log.py writes the first of each kind a
    minute and counts the repeats): a refusal another test recorded a moment ago is not this test's repeat."""
    from dashboard import audit_log

    monkeypatch.setattr(audit_log, "REPEATS", audit_log.Repeats())


@pytest.fixture(autouse=True)
def in_default_project(signed_in_user):
    """Code a test calls outside a request (the stores, the job runner) works in the test user's project
    ``default``, as owner (dashboard/access/projects.py ``scope``); requests use their own session's project."""
    from dashboard.access import projects

    with projects.scope(signed_in.project_id()) as current:
        yield current


# ---------------------------------------------------------------- a throwaway PostgreSQL cluster


@pytest.fixture(scope="session")
def postgres_server():
    """Debian's PostgreSQL (installed by ./test.sh): a throwaway cluster on a free loopback port for this test
    session, run as the postgres user (initdb refuses root), removed at the end. Yields a server URL
    without a database name (``postgresql+psycopg://postgres@127.0.0.1:PORT``)."""
    import glob
    import shutil
    import subprocess
    import tempfile

    from testkit.servers import free_port

    bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    assert bins, "PostgreSQL is not installed (./test.sh installs Debian's postgresql)"
    pgbin = Path(bins[-1]).parent
    base = tempfile.mkdtemp(prefix="perfcast-pg-", dir="/tmp")
    shutil.chown(base, "postgres", "postgres")
    port = free_port()

    def as_postgres(*cmd):
        subprocess.run(["runuser", "-u", "postgres", "--", *map(str, cmd)], check=True, capture_output=True)

    as_postgres(pgbin / "initdb", "-D", f"{base}/data", "-U", "postgres", "-A", "trust", "-E", "UTF8",
                "--no-locale", "--no-sync")
    as_postgres(pgbin / "pg_ctl", "-D", f"{base}/data", "-l", f"{base}/pg.log", "-w", "-o",
                f"-p {port} -k {base} -h 127.0.0.1 -c fsync=off", "start")
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}", lambda name: as_postgres(
            pgbin / "createdb", "-h", "127.0.0.1", "-p", port, "-U", "postgres", name)
    finally:
        subprocess.run(["runuser", "-u", "postgres", "--", str(pgbin / "pg_ctl"), "-D", f"{base}/data", "-m",
                        "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture()
def postgres_url(postgres_server, request):
    """A new, empty database in the session's PostgreSQL cluster for this test; this process's pooled
    connections to it are closed when the test ends (left open, a long run's tests used up the server's
    hundred connections and a later test was refused with 'too many clients')."""
    import re

    from dashboard.access import database

    server, createdb = postgres_server
    name = "t_" + re.sub(r"\W", "_", request.node.name.lower())[:50] + "_" + secrets_hex()
    createdb(name)
    url = f"{server}/{name}"
    yield url
    database.close(url)


def secrets_hex() -> str:
    import secrets

    return secrets.token_hex(4)


@pytest.fixture(autouse=True)
def _dash_current_app_kept():
    """A test that makes a Dash app of its own must give Dash's current app back (``dash._get_app.APP``: the
    app made last). Its secret signs every background job's handle, and perfcast's Cancel checks the handle
    with perfcast's app's secret: a small app left current made every later Cancel in the session stop
    nothing (tests/dashboard/test_callback_graph.py shows how to give it back)."""
    import dash._get_app as current

    before = current.APP
    yield
    assert before is None or current.APP is before, (
        "this test left its own Dash app as Dash's current app: every later Cancel would stop no job")

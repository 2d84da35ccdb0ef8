"""A saved item's delete button as each role sees it: enabled for editors and owners, disabled with the reason
for a viewer (who used to get an enabled button and a confirm dialog before the refusal)."""

from dashboard.access import projects
from dashboard.ui.delete_confirm import delete_button


def test_a_viewer_sees_a_disabled_delete_button_with_the_reason(var):
    here = projects.current_id()
    for role, disabled in (("viewer", True), ("editor", False), ("owner", False)):
        with projects.scope(here, role=role):
            button = delete_button("scenario", "sc-0123456789abcdef").to_plotly_json()["props"]
        assert button["disabled"] is disabled, role
        assert ("viewers cannot delete" in button["title"]) is disabled

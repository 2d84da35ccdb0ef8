"""Controls that change something (Save, upload, delete) as the current role sees them: usable for editors and
owners; for a viewer disabled, with the reason as their title and a note beside them, so nothing looks usable
until clicked. The server refuses a viewer's change whatever the control says (``access.projects.refused``)."""

from __future__ import annotations

from dash import dcc, html


def viewer_reason(action: str) -> str:
    return f"viewers cannot {action}: an editor or owner of the project can"


def may_change() -> bool:
    from dashboard.access.projects import can

    return can("editor")


def editor_only(component, action: str, note: bool = True):
    """``component`` (a button, an input, a ``dcc.Upload`` and the button inside it) as the current role may use
    it: unchanged for an editor or owner; for a viewer disabled, titled with the reason and followed by a note
    (``note=False``: the title only, where a note is said once for several controls)."""
    if may_change():
        return component
    reason = viewer_reason(action)
    _disable(component, reason)
    if not note:
        return component
    return html.Span([component, html.Span(f" ({reason})", className="hint viewer-note")],
                     className="viewer-disabled")


def _disable(component, reason: str) -> None:
    if isinstance(component, (html.Button, dcc.Input)):
        component.disabled = True
        component.title = reason
    elif isinstance(component, dcc.Upload):
        component.disabled = True
        component.className_disabled = f"{getattr(component, 'className', None) or ''} upload-disabled".strip()
        if isinstance(component.children, html.Button):
            component.children.disabled = True
            component.children.title = reason
    else:
        raise TypeError(f"editor_only does not know how to disable a {type(component).__name__}")

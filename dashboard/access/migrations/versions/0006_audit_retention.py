"""audit_head.first_event_id and audit_head.anchor (the trail kept after the retention rule deleted older events
still verifies: it starts from the anchor), and an index of audit_events on (project_id, id) for a project's
pages newest first

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("audit_head") as batch:
        batch.add_column(sa.Column("first_event_id", sa.Integer, nullable=True))
        batch.add_column(sa.Column("anchor", sa.String(64), nullable=True))
    op.create_index("ix_audit_events_project_id_id", "audit_events", ["project_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_audit_events_project_id_id", "audit_events")
    with op.batch_alter_table("audit_head") as batch:
        batch.drop_column("anchor")
        batch.drop_column("first_event_id")

"""sessions.project_id (the project a browser works in) and audit_events.project_id (the project an event
happened in)

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # batch mode: SQLite cannot add a foreign key to an existing table in place (Alembic copies the table)
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("project_id", sa.Integer, nullable=True))
        batch.create_foreign_key("fk_sessions_project_id", "projects", ["project_id"], ["id"], ondelete="SET NULL")
    # no foreign key: the trail keeps the id of a project that was removed later (append-only)
    with op.batch_alter_table("audit_events") as batch:
        batch.add_column(sa.Column("project_id", sa.Integer, nullable=True))
        batch.create_index("ix_audit_events_project_id", ["project_id"])


def downgrade() -> None:
    with op.batch_alter_table("audit_events") as batch:
        batch.drop_index("ix_audit_events_project_id")
        batch.drop_column("project_id")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_constraint("fk_sessions_project_id", type_="foreignkey")
        batch.drop_column("project_id")

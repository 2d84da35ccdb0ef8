"""invitations (an owner's one-time link to join a project, accepted by the invited person) and
users.last_project_id (the project a user last chose: a new session starts there)

Revision ID: 0005
Revises: 0004
"""

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "invitations",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("project_id", sa.Integer, sa.ForeignKey("projects.id", ondelete="CASCADE"), nullable=False),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("created_by", sa.String(64), nullable=False),
        sa.Column("created", sa.DateTime, nullable=False),
        sa.Column("expires", sa.DateTime, nullable=False),
        sa.Column("used", sa.DateTime, nullable=True),
        sa.Column("used_by", sa.String(64), nullable=True),
        sa.Column("revoked", sa.DateTime, nullable=True),
    )
    op.create_index("ix_invitations_project_id", "invitations", ["project_id"])
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("last_project_id", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.drop_column("last_project_id")
    op.drop_index("ix_invitations_project_id", "invitations")
    op.drop_table("invitations")

from api.models import Base
from ingest.database import run_migrations_in_env

run_migrations_in_env(Base.metadata)

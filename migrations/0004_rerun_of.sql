-- A checkup made to check a fix: the earlier checkup of the same training it re-runs, which
-- its diagnosis is compared with. Deleting the earlier one leaves the re-run standing alone.
ALTER TABLE checkups ADD COLUMN rerun_of INTEGER REFERENCES checkups(id) ON DELETE SET NULL;

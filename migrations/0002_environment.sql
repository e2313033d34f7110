-- The static environment check of a live host (JSON of checkup_model::CheckReport), kept
-- apart from the diagnosis: a checkup has it from its first wizard step on.
ALTER TABLE checkups ADD COLUMN environment TEXT;

-- Diagnoses as typed facts (checkup_model::DIAGNOSIS_FORMAT 2) instead of English texts.
-- Rows written before keep their JSON, marked format 1: the app analyses their recording
-- again when it is still there (crates/checkup-store: `stale`), and keeps the old JSON
-- otherwise. `verdict` (English) is no longer written; the history list words the leading
-- finding instead, kept here as JSON.
ALTER TABLE checkups ADD COLUMN diagnosis_format INTEGER NOT NULL DEFAULT 1;
ALTER TABLE checkups ADD COLUMN lead_finding TEXT;

-- Every checkup the app ran or opened, with its diagnosis (the engine's JSON, which carries
-- the chart data) and where the wizard was left, so a checkup can be resumed.
CREATE TABLE checkups (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    created_at    REAL    NOT NULL,             -- epoch seconds
    title         TEXT    NOT NULL,
    host          TEXT    NOT NULL,             -- "this computer", an ssh alias, "recording"
    source        TEXT,                         -- run folder or trace the checkup came from
    is_demo       INTEGER NOT NULL DEFAULT 0,
    wizard_step   TEXT    NOT NULL DEFAULT 'environment',
    primary_id    TEXT,                         -- denormalised for the history list
    verdict       TEXT,
    diagnosis     TEXT                          -- JSON of checkup_model::Diagnosis
);

CREATE INDEX checkups_by_time ON checkups (created_at DESC);

-- Review notes a team attaches to a finding.
CREATE TABLE finding_notes (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    checkup_id  INTEGER NOT NULL REFERENCES checkups (id) ON DELETE CASCADE,
    finding_id  TEXT    NOT NULL,
    author      TEXT    NOT NULL DEFAULT '',
    body        TEXT    NOT NULL,
    created_at  REAL    NOT NULL
);

CREATE INDEX notes_by_checkup ON finding_notes (checkup_id, finding_id);

-- The project's baseline checkup (at most one).
CREATE TABLE baseline (
    only        INTEGER PRIMARY KEY CHECK (only = 1),
    checkup_id  INTEGER NOT NULL REFERENCES checkups (id) ON DELETE CASCADE
);

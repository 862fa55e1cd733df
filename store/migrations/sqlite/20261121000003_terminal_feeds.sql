-- Terminal availability checks and shipping-line deadlines (pipeline/src/feeds/terminal.rs).
-- `body` is the normalized record as JSON (model.rs TerminalCheck / LineDeadline); `raw` the
-- row as the file had it, so no original text (hold and fee names, dates) is lost.

CREATE TABLE terminal_checks (
    id                TEXT PRIMARY KEY,   -- UUID v5 of account, terminal, container, checked_at
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    container_number  TEXT NOT NULL,
    terminal_id       TEXT NOT NULL,
    terminal_locode   TEXT NOT NULL,
    checked_at        TEXT NOT NULL,
    source_file       TEXT NOT NULL,
    source_index      BIGINT NOT NULL,
    raw               TEXT NOT NULL,
    body              TEXT NOT NULL
);
CREATE INDEX terminal_checks_container ON terminal_checks (account_id, container_number);

CREATE TABLE line_deadlines (
    id                TEXT PRIMARY KEY,   -- UUID v5 of account, container or bill of lading, issued_at
    account_id        TEXT NOT NULL REFERENCES accounts (id),
    container_number  TEXT,
    bill_of_lading    TEXT,
    issued_at         TEXT NOT NULL,
    source_file       TEXT NOT NULL,
    source_index      BIGINT NOT NULL,
    raw               TEXT NOT NULL,
    body              TEXT NOT NULL
);
CREATE INDEX line_deadlines_container ON line_deadlines (account_id, container_number);
CREATE INDEX line_deadlines_bill_of_lading ON line_deadlines (account_id, bill_of_lading);

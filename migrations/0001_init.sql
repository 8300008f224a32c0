-- Schema 1: every fact family cudb knows, each row with its provenance
-- (source name, URL, and the row/section it came from).
-- *_key columns hold version.SortKey/DottedKey so ordering and range
-- queries happen in SQL.

CREATE TABLE source (
    name       TEXT PRIMARY KEY,
    url        TEXT NOT NULL,
    fetched_at TEXT NOT NULL DEFAULT '',
    sha256     TEXT NOT NULL,
    rows       INTEGER NOT NULL
);

CREATE TABLE release (
    component   TEXT NOT NULL,
    version     TEXT NOT NULL,
    version_key TEXT NOT NULL,
    released_on TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL REFERENCES source(name),
    url         TEXT NOT NULL DEFAULT '',
    ref         TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (component, version)
);

CREATE TABLE build (
    id            INTEGER PRIMARY KEY,
    component     TEXT NOT NULL,
    version       TEXT NOT NULL,
    version_key   TEXT NOT NULL,
    variant       TEXT NOT NULL DEFAULT '',
    platform      TEXT NOT NULL DEFAULT '',
    package       TEXT NOT NULL DEFAULT '',
    pip_version   TEXT NOT NULL DEFAULT '',
    cuda          TEXT NOT NULL DEFAULT '',
    cuda_key      TEXT NOT NULL DEFAULT '',
    python_min    TEXT NOT NULL DEFAULT '',
    python_max    TEXT NOT NULL DEFAULT '',
    index_url     TEXT NOT NULL DEFAULT '',
    arch_list     TEXT NOT NULL DEFAULT '',
    is_default    INTEGER NOT NULL DEFAULT 0,
    channel       TEXT NOT NULL DEFAULT '',
    source        TEXT NOT NULL REFERENCES source(name),
    url           TEXT NOT NULL DEFAULT '',
    ref           TEXT NOT NULL DEFAULT '',
    UNIQUE (component, version, variant, platform, channel)
);
CREATE INDEX build_component ON build(component, version_key);

CREATE TABLE requirement (
    build_id  INTEGER NOT NULL REFERENCES build(id),
    needs     TEXT NOT NULL,
    spec      TEXT NOT NULL,
    kind      TEXT NOT NULL CHECK (kind IN ('bundled','pin','tested','minimum','maximum','paired')),
    marker    TEXT NOT NULL DEFAULT '',
    source    TEXT NOT NULL REFERENCES source(name),
    url       TEXT NOT NULL DEFAULT '',
    ref       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (build_id, needs, kind)
);

CREATE TABLE cuda_driver (
    cuda        TEXT NOT NULL,
    cuda_key    TEXT NOT NULL,
    label       TEXT NOT NULL DEFAULT '',
    os          TEXT NOT NULL CHECK (os IN ('linux','windows')),
    kind        TEXT NOT NULL CHECK (kind IN ('toolkit','minor_compat')),
    min_driver  TEXT NOT NULL,
    driver_key  TEXT NOT NULL,
    released_on TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL REFERENCES source(name),
    url         TEXT NOT NULL DEFAULT '',
    ref         TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (cuda, os, kind)
);

CREATE TABLE cudnn_support (
    cudnn              TEXT NOT NULL,
    cudnn_key          TEXT NOT NULL,
    cuda_major         TEXT NOT NULL DEFAULT '',
    cuda_versions      TEXT NOT NULL DEFAULT '',
    cuda_min           TEXT NOT NULL DEFAULT '',
    cuda_max           TEXT NOT NULL DEFAULT '',
    min_driver_linux   TEXT NOT NULL DEFAULT '',
    min_driver_windows TEXT NOT NULL DEFAULT '',
    cc_list            TEXT NOT NULL DEFAULT '',
    released_on        TEXT NOT NULL DEFAULT '',
    source             TEXT NOT NULL REFERENCES source(name),
    url                TEXT NOT NULL DEFAULT '',
    ref                TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (cudnn, cuda_major, cuda_versions)
);

CREATE TABLE gpu (
    name               TEXT PRIMARY KEY,
    aliases            TEXT NOT NULL DEFAULT '',
    compute_capability TEXT NOT NULL,
    architecture       TEXT NOT NULL DEFAULT '',
    segment            TEXT NOT NULL DEFAULT '',
    source             TEXT NOT NULL REFERENCES source(name),
    url                TEXT NOT NULL DEFAULT '',
    ref                TEXT NOT NULL DEFAULT ''
);

CREATE TABLE cuda_arch (
    cuda     TEXT PRIMARY KEY,
    cuda_key TEXT NOT NULL,
    sm_min   TEXT NOT NULL DEFAULT '',
    sm_max   TEXT NOT NULL DEFAULT '',
    added    TEXT NOT NULL DEFAULT '',
    deprecated TEXT NOT NULL DEFAULT '',
    dropped  TEXT NOT NULL DEFAULT '',
    source   TEXT NOT NULL REFERENCES source(name),
    url      TEXT NOT NULL DEFAULT '',
    ref      TEXT NOT NULL DEFAULT ''
);

CREATE TABLE driver_branch (
    branch      TEXT PRIMARY KEY,
    branch_key  TEXT NOT NULL,
    max_cuda    TEXT NOT NULL DEFAULT '',
    branch_type TEXT NOT NULL DEFAULT '',
    end_of_life TEXT NOT NULL DEFAULT '',
    source      TEXT NOT NULL REFERENCES source(name),
    url         TEXT NOT NULL DEFAULT '',
    ref         TEXT NOT NULL DEFAULT ''
);

-- Facts that fit no table above (e.g. "last native Windows GPU release"),
-- keyed by component/version/key.
CREATE TABLE attribute (
    component TEXT NOT NULL,
    version   TEXT NOT NULL DEFAULT '',
    key       TEXT NOT NULL,
    value     TEXT NOT NULL,
    source    TEXT NOT NULL REFERENCES source(name),
    url       TEXT NOT NULL DEFAULT '',
    ref       TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (component, version, key)
);

-- Where two sources (or two rows of one source) disagree: what was kept,
-- what was refused, and why. `cudb db check` lists these.
CREATE TABLE conflict (
    id           INTEGER PRIMARY KEY,
    subject      TEXT NOT NULL,
    field        TEXT NOT NULL,
    kept         TEXT NOT NULL,
    kept_source  TEXT NOT NULL,
    other        TEXT NOT NULL,
    other_source TEXT NOT NULL,
    note         TEXT NOT NULL DEFAULT ''
);

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- The distinct versions of each component that has builds, filled by the
-- database build: resolve matches a requirement against these few rows
-- before it reads any build, instead of walking every build row.
CREATE TABLE build_version (
    component   TEXT NOT NULL,
    version     TEXT NOT NULL,
    version_key TEXT NOT NULL,
    PRIMARY KEY (component, version_key, version)
) WITHOUT ROWID;

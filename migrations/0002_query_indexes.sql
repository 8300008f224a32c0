-- Indexes for the query layer's two hot reads: the distinct versions of a
-- component (covering, so no table row is visited) and the builds of a
-- set of versions.
CREATE INDEX build_versions ON build(component, version_key, version);
CREATE INDEX build_component_version ON build(component, version);

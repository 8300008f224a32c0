-- Request mix for `make load` (wrk): resolve questions of every kind,
-- cycling, against `cudb serve` on loopback.
local paths = {
  "/v1/resolve?req=torch==2.1&cuda=12.1",
  "/v1/resolve?req=torch==2.4.0&driver=535.104.05&gpu=T4",
  "/v1/resolve?req=tensorflow==2.15.0",
  "/v1/resolve?req=jax==0.4.30",
  "/v1/resolve?req=torch==2.3.1&req=tensorflow==2.14.1",
  "/v1/resolve?req=torch%3E%3D2,%3C2.3&python=3.11&platform=linux&limit=3",
}
local i = 0
request = function()
  i = i + 1
  return wrk.format("GET", paths[(i % #paths) + 1])
end

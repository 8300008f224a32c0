package pytorch

// Helpers the external tests (package pytorch_test) use.
var (
	FindBuild  = findBuild
	FindReq    = findReq
	NormMarker = normMarker
)

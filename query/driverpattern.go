package query

// DriverPattern is the form of a driver version ParseDriver accepts
// (after an optional leading "r"), as a regular expression: the shape
// isDottedNumber checks. With DriverMajorMin and DriverMajorMax it is
// what the site's install selector checks typed drivers against.
const (
	DriverPattern  = `^\d{1,4}(\.\d{1,6}){0,3}$`
	DriverMajorMin = 100
	DriverMajorMax = 999
)

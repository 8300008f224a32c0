// Package verify judges host facts (from the probe, a pasted report, or
// the host a project file builds, which check hands over through the use
// case) against the database and returns findings in the shared model
// (query/findings), each with evidence, a fix and its sources; explain
// turns error text into the same findings. It imports neither check nor
// pin: they are siblings, put together by package usecase.
package verify

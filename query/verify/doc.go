// Package verify judges host facts (from the probe or a pasted report)
// against the database and returns findings, each with evidence, a fix and
// its sources; explain turns error text into the same findings.
package verify

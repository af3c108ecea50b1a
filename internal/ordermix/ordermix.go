// Package ordermix forwards to reconcile/reconciletest, the order mix's
// home since test kits left internal/ (a package here imports only what
// stands below it). It remains only because reconcile/sqlstore's tests
// still name this path; when they import reconcile/reconciletest, delete
// this package and its two allow lines in .ci/floors/floors.txt. (No
// "Deprecated:" mark: staticcheck would fail those tests until they move.)
package ordermix

import "github.com/upicollect/upicollect-go/reconcile/reconciletest"

// Kind is reconciletest.Kind.
type Kind = reconciletest.Kind

// The kinds of the mix: reconciletest's.
const (
	PaidEarly      = reconciletest.PaidEarly
	FailedEarly    = reconciletest.FailedEarly
	FailedThenPaid = reconciletest.FailedThenPaid
	PaidLate       = reconciletest.PaidLate
	NeverPaid      = reconciletest.NeverPaid
	CreationSpread = reconciletest.CreationSpread
)

// Kinds is reconciletest.Kinds.
var Kinds = reconciletest.Kinds

// Planned is reconciletest.Planned.
type Planned = reconciletest.Planned

// Clock is reconciletest.Clock.
type Clock = reconciletest.Clock

// Step is reconciletest.Step.
type Step = reconciletest.Step

// Delivery is reconciletest.Delivery.
type Delivery = reconciletest.Delivery

// Report is reconciletest.Report.
type Report = reconciletest.Report

// Recorder is reconciletest.Recorder.
type Recorder = reconciletest.Recorder

// The functions of the mix: reconciletest's.
var (
	Plan     = reconciletest.Plan
	NewClock = reconciletest.NewClock
	Create   = reconciletest.Create
	Walk     = reconciletest.Walk
	Add      = reconciletest.Add
	Check    = reconciletest.Check
)

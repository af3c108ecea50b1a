// Package loopback holds the rules of code that is meant for this machine
// only, in one place for every module of the SDK: which hosts are this
// machine's loopback (Host), and the guard of a server that listens on
// loopback against web pages in the user's browser (Guard: DNS rebinding
// and cross-site requests).
//
// The SDK allows plain http only to a loopback base URL, reconcile/webhook
// only to a loopback receiver, and `upicollect reconcile serve` listens
// beyond loopback only when told; the sandbox and the CLI's dashboard
// answer a browser through Guard.
package loopback

package paypage

import (
	"html/template"
	"slices"

	"github.com/upicollect/upicollect-go"
	"github.com/upicollect/upicollect-go/internal/upi"
	"github.com/upicollect/upicollect-go/internal/vocab"
)

// GenericApp is Link.App of an intent's generic link (Intent.Link): the
// answer's own name for it.
const GenericApp = "intent"

// GenericName is Link.Name of an intent's generic link: a upi: link opens
// whichever UPI app the payer has (Android asks which), BHIM and the banks'
// apps included.
const GenericName = "Any UPI app"

// Link is one of an intent's links as a pay page shows it: a button that
// opens a UPI app on the payer's phone.
type Link struct {
	// App is the link's key in the service's answer ("phonepe", "gpay",
	// "paytm", "cred", ...), or GenericApp for Intent.Link.
	App string
	// Name is what the button says: the app's own name ("PhonePe",
	// "Google Pay", "Paytm", "CRED", "BHIM"), the key as the answer spells
	// it for an app the SDK does not know, or GenericName.
	Name string
	// URL is the link, typed for html/template: <a href="{{.URL}}"> keeps
	// it, where a plain string with the upi: or an app's scheme would be
	// replaced by "#ZgotmplZ". Links sets it only to a link it has read as
	// a UPI link (see Links).
	URL template.URL
}

// Links returns the intent's links in the order a pay page lists them,
// each with the name of the app it opens:
//
//  1. the apps the SDK knows, most used first: PhonePe ("phonepe"),
//     Google Pay ("gpay"), Paytm ("paytm"), CRED ("cred"), BHIM ("bhim");
//  2. the other keys of Intent.AppLinks, sorted, each named by its key;
//  3. the generic link, Intent.Link, last, as GenericName: the catch-all
//     for every app without a button of its own, as hosted checkouts list
//     "other UPI apps" after the named ones.
//
// The order is stable: the same intent gives the same slice. The links are
// for a phone; a laptop cannot open them (show it the QR code, see QR).
//
// Each URL is a template.URL, so html/template keeps it in an href. That is
// safe because html/template blanks such URLs only for fear of a
// javascript: or similar link, and these are not: CreatePaymentIntent
// reads every link of the answer (the generic one must be upi:, an app's
// upi: or the app's own scheme, never javascript:, vbscript:, data:,
// file:, http(s): or intent:) and checks each pays the amount, order and
// payee asked, or refuses the answer. Links reads each link again, so that
// an Intent built or changed elsewhere cannot slip another scheme through:
// a link that does not read as a UPI link of an allowed scheme, or has
// spaces around it, is left out. html/template still escapes the URL for
// its attribute. For an Intent that did not come from CreatePaymentIntent,
// call its Verify before showing its links: Links checks what a link is,
// not what it pays. A nil intent has no links.
func Links(in *upicollect.Intent) []Link {
	if in == nil {
		return nil
	}
	links := make([]Link, 0, len(in.AppLinks)+1)
	for _, app := range vocab.UPIApps {
		if u, ok := in.AppLinks[app.Key]; ok && isAppLink(u) {
			links = append(links, Link{App: app.Key, Name: app.Name, URL: template.URL(u)})
		}
	}
	others := make([]string, 0, len(in.AppLinks))
	for k, u := range in.AppLinks {
		if vocab.AppName(k) == "" && isAppLink(u) {
			others = append(others, k)
		}
	}
	slices.Sort(others)
	for _, k := range others {
		links = append(links, Link{App: k, Name: k, URL: template.URL(in.AppLinks[k])})
	}
	if isUPILink(in.Link) {
		links = append(links, Link{App: GenericApp, Name: GenericName, URL: template.URL(in.Link)})
	}
	return links
}

// isAppLink reports whether s reads as a link a UPI app opens: upi: or an
// app's own scheme, never a web, script, file or intent: one, naming a
// payee, with nothing around it.
func isAppLink(s string) bool { return upi.CheckAppLink("", s) == nil }

// isUPILink reports whether s is an app link with the upi: scheme itself,
// as the generic link and a dynamic QR's link must be.
func isUPILink(s string) bool { return upi.HasUPIScheme(s) && isAppLink(s) }

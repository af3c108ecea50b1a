// Package paypage gives a shop's pay page what it needs to show a payment
// intent (upicollect.Intent), with html/template:
//
//   - Links: the intent's app links in a stable order with the apps' names
//     (PhonePe, Google Pay, Paytm, CRED, BHIM, the apps the SDK does not
//     know by their key, and the generic link last as "Any UPI app"), for
//     the buttons a payer on a phone taps.
//   - QR: the QR code as a PNG and a data: URL, for a payer on a laptop to
//     scan with a phone, from whichever form Intent.DynamicQR took (a
//     data:image/png;base64 URL, raw base64 of a PNG, a upi: link to draw),
//     or drawn from the generic link when DynamicQR is absent, unusable or
//     the web address of an image, which is never fetched. LinkQR always
//     draws the generic link.
//
// html/template replaces a upi:, app-scheme or data: URL in an href or src
// by "#ZgotmplZ", fearing a javascript: link. Links and Image.DataURL give
// template.URL values, which it keeps: safe, because every link has been
// read as a UPI link of an allowed scheme (never javascript:, data:, http:
// and the like) and the data: URL is built here from a PNG.
//
// A laptop's browser cannot open a upi: link, and a phone cannot scan its
// own screen. So a pay page shows the QR code on a wide screen and the app
// buttons on a phone, chosen by a CSS media query on the screen's width
// and pointer rather than the user agent, and never sends a laptop to a
// upi: link (by a link, a script or a redirect). It offers "I have paid"
// back to the shop's return page, which checks the order (with the
// reconcile package's Sweeper.Confirm). examples/checkout in this
// repository is the whole pattern; its pay page in short:
//
//	qr, err := paypage.QR(intent, 0)
//	...
//	page.Execute(w, map[string]any{"QR": qr, "Apps": paypage.Links(intent)})
//
//	<style>.apps{display:none}
//	@media (max-width:40rem),(hover:none) and (pointer:coarse){.apps{display:block}}</style>
//	<img class="qr" alt="UPI QR code" width="{{.QR.Size}}" height="{{.QR.Size}}" src="{{.QR.DataURL}}">
//	<nav class="apps">{{range .Apps}}<a href="{{.URL}}">{{.Name}}</a>{{end}}</nav>
//	<a href="/return?ref=…">I have paid</a>
//
// The package is apart from the SDK's root package so that a program that
// never draws a page does not link html/template and a PNG encoder. It
// does no I/O.
package paypage

package main

import "html/template"

// layout is every page's frame. Its phone rules apply to a narrow screen
// or a touch screen without a mouse, whatever the browser says it is: no
// user agent is read. The QR code is shown at its own size (narrower only
// on a narrower screen): scaled by another factor, its modules come out
// of unequal widths, which some scanners fail on.
const layout = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chai Shop</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;line-height:1.5;color:#1f2328}
input,button,.button,.app{font-size:1rem;padding:.625rem;width:100%;box-sizing:border-box;margin:.25rem 0;min-height:2.75rem}
button,.button{background:#1a7f37;color:#fff;border:0;border-radius:.375rem;display:block;text-align:center;text-decoration:none}
.secondary{background:#fff;color:#1a7f37;border:1px solid #1a7f37}
code{word-break:break-all}h2{font-size:1.125rem;margin:1.25rem 0 .5rem}
.qr{display:block;max-width:100%;height:auto;margin:.5rem auto;image-rendering:pixelated}
.app{display:block;border:1px solid #d0d7de;border-radius:.375rem;color:#1f2328;text-decoration:none;font-weight:600;text-align:center}
.apps,.on-phone{display:none}
@media (max-width:40rem),(hover:none) and (pointer:coarse){
.apps,.on-phone{display:block}.on-laptop{display:none}}</style>
</head><body><main>{{template "body" .}}</main></body></html>`

// page is the layout around body. It returns the layout's template, which
// runs body inside it: body's own template would render without the
// layout (no viewport, styles, language or title).
func page(body string) *template.Template {
	t := template.Must(template.New("page").Parse(layout))
	template.Must(t.New("body").Parse(body))
	return t
}

var (
	productPage = page(`<h1>Masala chai kit</h1><p>₹{{.Price}}</p>
<form method="post" action="/checkout">
<input name="name" aria-label="Name" placeholder="Name" value="Ravi Kumar">
<input name="email" aria-label="E-mail" placeholder="E-mail" value="ravi@example.com">
<input name="mobile" aria-label="Mobile" placeholder="Mobile" value="98765 43210">
<button>Pay ₹{{.Price}} with UPI</button>
<button formaction="/checkout/qr" class="secondary">Pay here: QR code or UPI app</button></form>`)

	// payPageTmpl is the shop's own pay page for an intent. On a laptop it
	// shows the QR code, which the payer scans with a phone; on a phone,
	// which cannot scan its own screen, a button per UPI app first (the
	// paypage.Links, in their order), the QR code below for paying
	// from another phone. The app buttons are hidden on a laptop, whose
	// browser cannot open a upi: link: nothing here sends it there. "I have
	// paid" goes to the return page, which checks the order.
	payPageTmpl = page(`<h1>Pay ₹{{.Intent.Amount}}</h1>
<p>Order <code>{{.Intent.OrderID}}</code>{{with .Intent.MerchantName}} to {{.}}{{end}}</p>
<section class="apps" aria-label="UPI apps"><h2>Pay with a UPI app</h2>
{{range .Apps}}<a class="app" data-app="{{.App}}" href="{{.URL}}">{{.Name}}</a>
{{end}}</section>
<section class="scan"><h2 class="on-laptop">Scan with a UPI app on your phone</h2>
<h2 class="on-phone">Paying from another phone? Scan this code</h2>
<img class="qr" alt="UPI QR code for ₹{{.Intent.Amount}}" width="{{.QR.Size}}" height="{{.QR.Size}}" src="{{.QR.DataURL}}">
<p class="on-laptop">Open Google Pay, PhonePe, Paytm, BHIM or your bank's UPI app and scan the code.</p></section>
<a class="button" href="{{.Return}}">I have paid</a>
{{if .SandboxPay}}<p><a href="{{.SandboxPay}}">Sandbox: play the payer</a></p>{{end}}`)

	notFoundPage = page(`<h1>Waiting for your payment</h1>
<p>No payment for order <code>{{.Order.ID}}</code> has reached us yet. If you have just paid, it can take a minute to arrive: <a href="">refresh this page</a>.</p>
{{if .PayAgain}}<p>Not paid yet? <a href="{{.PayAgain}}">Go to the payment page</a>.</p>{{end}}`)

	failedPage = page(`<h1>Payment not completed</h1><p>The payment for order <code>{{.Order.ID}}</code> did not go through ({{.Status.TxnStatus}}).
If money left your account, check this page again later: a bank sometimes confirms a payment late, and it will then show here.</p>
<p><a href="/">Start a new order</a></p>`)

	paidPage = page(`<h1>Thank you!</h1><p>We received ₹{{.Status.Amount}} for order <code>{{.Order.ID}}</code> (UTR {{.Status.UTR}}).</p>`)

	errorPage = page(`<h1>Sorry</h1><p>{{.Message}}</p>`)
)

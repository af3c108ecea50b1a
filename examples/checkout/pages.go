package main

import "html/template"

const layout = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Chai Shop</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
input,button{font-size:1rem;padding:.5rem;width:100%;box-sizing:border-box;margin:.25rem 0}
button{background:#1a7f37;color:#fff;border:0;border-radius:.375rem}img{width:100%;max-width:16rem}
code{word-break:break-all}</style></head><body>{{template "body" .}}</body></html>`

func page(body string) *template.Template {
	return template.Must(template.Must(template.New("page").Parse(layout)).New("body").Parse(body))
}

var (
	productPage = page(`<h1>Masala chai kit</h1><p>₹{{.Price}}</p>
<form method="post" action="/checkout">
<input name="name" placeholder="Name" value="Ravi Kumar">
<input name="email" placeholder="E-mail" value="ravi@example.com">
<input name="mobile" placeholder="Mobile" value="98765 43210">
<button>Pay ₹{{.Price}} with UPI</button>
<button formaction="/checkout/qr" style="background:#fff;color:#1a7f37;border:1px solid #1a7f37">Show a QR code here instead</button></form>`)

	payPageTmpl = page(`<h1>Pay ₹{{.Intent.Amount}}</h1>
<p>Order <code>{{.Intent.OrderID}}</code></p>
{{if .QRImage}}<img alt="UPI QR code" src="{{.QRImage}}">{{else}}<p>QR: <code>{{.Intent.DynamicQR}}</code></p>{{end}}
{{if .UPILink}}<p><a href="{{.UPILink}}">Open in a UPI app</a></p>{{end}}
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

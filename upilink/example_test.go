package upilink_test

import (
	"fmt"

	"github.com/upicollect/upicollect-go/upilink"
)

func ExampleParse() {
	l, err := upilink.Parse("tez://upi/pay?pa=shop%40okaxis&pn=Chai+Shop&am=499&tr=ord_1&mc=5411")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(l.PayeeVPA, l.PayeeName, l.Amount, l.TxnRef)
	// Output: shop@okaxis Chai Shop 499.00 ord_1
}

func ExampleLink_String() {
	l := upilink.Link{Scheme: "upi", PayeeVPA: "shop@okaxis", PayeeName: "Chai Shop", Amount: 10800, Note: "Tea & toast"}
	fmt.Println(l.String())
	// Output: upi://pay?pa=shop@okaxis&pn=Chai%20Shop&am=108.00&tn=Tea%20%26%20toast
}

func ExampleLink_Lint() {
	l, _ := upilink.Parse("upi://pay?pa=shop@okaxis&pn=Tea+%26+Co&mc=5411&cu=USD")
	for _, p := range l.Lint() {
		fmt.Println(p.Param + ": " + p.Message)
	}
	// Output:
	// tr: a merchant link (mc set) without a transaction reference
	// cu: currency USD: UPI settles INR only
	// pn: characters that payers' apps mangle: Tea & Co
}

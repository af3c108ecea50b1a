package upicollect_test

import (
	"context"
	"encoding/base32"
	"errors"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/upicollect/upicollect-go"
)

func TestMoneyString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		m    upicollect.Money
		want string
	}{
		{108, "1.08"},
		{49900, "499.00"},
		{0, "0.00"},
		{1, "0.01"},
		{10, "0.10"},
		{99, "0.99"},
		{100, "1.00"},
		{-108, "-1.08"},
		{-1, "-0.01"},
		{-100, "-1.00"},
		{upicollect.Rupees(100000), "100000.00"},
		{math.MaxInt64, "92233720368547758.07"},
		{math.MinInt64, "-92233720368547758.08"},
		{math.MinInt64 + 1, "-92233720368547758.07"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.m.String(), "Money(%d)", int64(tt.m))
		assert.Equal(t, tt.want, fmt.Sprint(tt.m))
	}
}

func TestMoneyRupeesPaise(t *testing.T) {
	t.Parallel()
	assert.Equal(t, upicollect.Money(49900), upicollect.Rupees(499))
	assert.Equal(t, int64(49900), upicollect.Rupees(499).Paise())
	assert.Equal(t, int64(0), upicollect.Rupees(0).Paise())
	assert.Equal(t, int64(-100), upicollect.Rupees(-1).Paise())
	assert.Equal(t, int64(108), upicollect.Money(108).Paise())
	assert.Equal(t, "100000.00", upicollect.Rupees(upicollect.MaxAmountRupees).String())
	assert.Equal(t, "1.00", upicollect.Rupees(upicollect.MinAmountRupees).String())
}

// TestRupeesSaturates: a count of rupees whose paise overflow int64 gives
// the largest or smallest Money, never a wrapped amount that looks valid.
func TestRupeesSaturates(t *testing.T) {
	t.Parallel()
	const maxR, minR = math.MaxInt64 / 100, math.MinInt64 / 100
	for _, tt := range []struct {
		rupees int64
		want   upicollect.Money
	}{
		{maxR, upicollect.Money(maxR * 100)},
		{maxR + 1, math.MaxInt64},
		{1<<62 + 499, math.MaxInt64},
		{math.MaxInt64, math.MaxInt64},
		{minR, upicollect.Money(minR * 100)},
		{minR - 1, math.MinInt64},
		{math.MinInt64, math.MinInt64},
		{-(1<<62 + 499), math.MinInt64},
	} {
		assert.Equal(t, tt.want, upicollect.Rupees(tt.rupees), "Rupees(%d)", tt.rupees)
	}
	assert.Equal(t, "92233720368547758.07", upicollect.Rupees(maxR+1).String())
}

func TestTxnStatusTerminal(t *testing.T) {
	t.Parallel()
	for s, want := range map[upicollect.TxnStatus]bool{
		upicollect.TxnSuccess: true,
		upicollect.TxnFail:    true,
		upicollect.TxnReject:  true,
		"REVERSED":            true,
		"pending":             true, // not canonical: the client canonicalises known values
		upicollect.TxnPending: false,
		"":                    false,
	} {
		assert.Equal(t, want, s.Terminal(), "%q", s)
	}
	var nilStatus *upicollect.PaymentStatus
	assert.False(t, nilStatus.Paid())
	assert.True(t, (&upicollect.PaymentStatus{TxnStatus: upicollect.TxnSuccess}).Paid())
	assert.False(t, (&upicollect.PaymentStatus{TxnStatus: upicollect.TxnFail}).Paid())
}

func TestNewOrderID(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^ord_[a-z2-7]{26}$`)
	seen := make(map[string]bool, 10000)
	for i := 0; i < 10000; i++ {
		id := upicollect.NewOrderID()
		require.Regexp(t, re, id)
		require.Equal(t, id, url.PathEscape(id), "URL-safe")
		require.Equal(t, id, url.QueryEscape(id), "URL-safe")
		require.False(t, seen[id], "duplicate id %s", id)
		seen[id] = true
	}
}

// TestNewOrderIDStartsWithTheTime: the first 48 bits of an id are its
// creation time in Unix milliseconds, so ids sort roughly by creation.
func TestNewOrderIDStartsWithTheTime(t *testing.T) {
	t.Parallel()
	enc := base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)
	before := time.Now().UnixMilli()
	id := upicollect.NewOrderID()
	after := time.Now().UnixMilli()
	b, err := enc.DecodeString(strings.TrimPrefix(id, "ord_"))
	require.NoError(t, err)
	require.Len(t, b, 16)
	var ms int64
	for _, x := range b[:6] {
		ms = ms<<8 | int64(x)
	}
	assert.GreaterOrEqual(t, ms, before)
	assert.LessOrEqual(t, ms, after)
}

func TestAPIErrorFormatting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *upicollect.APIError
		want string
	}{
		{"op only", &upicollect.APIError{Op: "x"}, "upicollect: x: "},
		{"status and message", &upicollect.APIError{Op: "x", HTTPStatus: 400, StatusCode: 400, Message: "bad"}, "upicollect: x: HTTP 400: bad"},
		{"status code differs", &upicollect.APIError{Op: "x", HTTPStatus: 200, StatusCode: 409, Message: "dup"}, "upicollect: x: HTTP 200 (statusCode 409): dup"},
		{"message only", &upicollect.APIError{Op: "x", Message: "m"}, "upicollect: x: m"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, tt.err.Error(), tt.name)
		assertSentinels(t, tt.err)
		assert.Nil(t, tt.err.Unwrap())
	}
}

// TestErrorsThroughWrapping: the sentinels still match after the caller
// wraps the error.
func TestErrorsThroughWrapping(t *testing.T) {
	t.Parallel()
	srv := newTestServer(t, always(409, loadResponse(t, "duplicate_409.json")))
	c, _ := newClient(t, srv.BaseURL())
	_, err := c.CreatePaymentIntent(context.Background(), validInput().intent())
	wrapped := fmt.Errorf("checkout 42: %w", err)
	assertSentinels(t, wrapped, upicollect.ErrDuplicateOrderID)
	var ae *upicollect.APIError
	require.True(t, errors.As(wrapped, &ae))
	assert.Equal(t, 409, ae.HTTPStatus)
}

func TestMaskVPA(t *testing.T) {
	for in, want := range map[string]string{"": "", "ravi@okaxis": "ra***@okaxis", "ra@okaxis": "***@okaxis", "nobank": "***"} {
		assert.Equal(t, want, upicollect.MaskVPA(in), in)
	}
}

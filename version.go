package upicollect

// Version is this SDK's version, sent in the User-Agent header.
const Version = "0.4.0"

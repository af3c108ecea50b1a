module modproxy

go 1.23.0

require golang.org/x/mod v0.25.0

module readmecheck

go 1.23.0

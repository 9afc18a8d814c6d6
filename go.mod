module github.com/dpmcmc/dpmcmc

go 1.26.8

require (
	github.com/syumai/workers v0.32.0
	gonum.org/v1/gonum v0.17.0
)

// Package storetest is the conformance suite every review.Backend passes.
package storetest

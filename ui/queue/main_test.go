package queue

import (
	"testing"

	"github.com/memreview/memreview/ui/uitest"
)

func TestMain(m *testing.M) { uitest.Main(m) }

// Creates a job and prints every status change of its executions as it happens (the README's
// "Use it from code" example; kairos_test.go runs it against a Kairos).
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	kairos "kairos.local/sdk/go"
)

func main() {
	ctx := context.Background()
	url := os.Getenv("KAIROS_URL")
	if url == "" {
		url = "http://127.0.0.1:4000/graphql"
	}
	client := kairos.NewClient(url, os.Getenv("KAIROS_TOKEN"))
	job, err := client.CreateJob(ctx, kairos.CreateJobInput{Name: "hello", Schedule: kairos.ScheduleInput{IntervalSeconds: kairos.Ptr(5)}, Target: kairos.JobTargetInput{Handler: kairos.Ptr("noop")}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("created", job.Id)
	watch, err := client.WatchExecutions(ctx, kairos.WatchFilter{JobID: job.Id})
	if err != nil {
		log.Fatal(err)
	}
	for event := range watch.Events {
		from := "(new)"
		if event.PreviousStatus != nil {
			from = string(*event.PreviousStatus)
		}
		fmt.Println(event.OccurredAt.Format("15:04:05.000"), event.Execution.Id, from, "->", event.Status)
	}
	log.Fatal(watch.Err())
}

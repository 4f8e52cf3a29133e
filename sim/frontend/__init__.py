"""sim: the SWaS front end: fetch, decode, issue, policies, references, witnesses."""

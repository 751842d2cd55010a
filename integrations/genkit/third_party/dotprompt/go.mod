module github.com/google/dotprompt/go

go 1.23.8

require (
	github.com/go-viper/mapstructure/v2 v2.4.0
	github.com/goccy/go-yaml v1.17.1
	github.com/invopop/jsonschema v0.14.0
)

require (
	github.com/davecgh/go-spew v1.1.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
)

require (
	github.com/mbleigh/raymond v0.0.0-20250414171441-6b3a58ab9e0a
	github.com/pb33f/ordered-map/v2 v2.3.1
)

require (
	github.com/bahlo/generic-list-go v0.2.0 // indirect
	github.com/buger/jsonparser v1.1.1 // indirect
	github.com/mailru/easyjson v0.9.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

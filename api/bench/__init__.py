"""The API's benchmarks, apart from the chat they measure: the load benchmark (`python -m api.bench.load`) and the
worker and API as processes on loopback that it and the end-to-end tests start (`api.bench.loopback`)."""

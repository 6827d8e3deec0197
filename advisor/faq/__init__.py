"""The URAG FAQ tier: the store searched by question similarity (`store`, loaded by every serving
process), and the build-time code that chooses its threshold (`calibrate`, over rule paraphrases
from `paraphrase`). Import the module you need: a serving process must not load the build-time half.

    store = FAQStore.load(build.directory / FAQ_DIR, build.schema)            # advisor.faq.store
    matches = store.search(build.embedder.embed_queries([q], tokenize([q]))[0], profile)
    calibration = calibrate(build, store, tokenize, Retriever(build, tokenize))  # advisor.faq.calibrate
"""

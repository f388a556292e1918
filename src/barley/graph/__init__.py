"""The graph-based parser (McDonald et al. 2005; Björkelund & Kuhn): hashed arc, sibling and label
features (:mod:`~barley.graph.features`), the model that turns them into score matrices
(:mod:`~barley.graph.model`), the parser that decodes them (:mod:`~barley.graph.parser`, with
:mod:`barley.decoders`) and learns them with the perceptron (:mod:`~barley.graph.learning`), and the
trained parser of kind ``graph`` (:mod:`~barley.graph.trained`)."""

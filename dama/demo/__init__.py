"""The bundled demo: a scripted whole game (:mod:`dama.demo.script`) rendered by our renderer into a video
(:mod:`dama.demo.video`), watched by the companion (``dama demo``)."""

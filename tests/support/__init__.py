"""What the tests share: the FMUs built once (:mod:`.fmus`), running an FMU (:mod:`.run`) and
the closed-form theory of the reference vehicles (:mod:`.sedan`)."""

"""What the tests share: the FMUs built once (:mod:`.fmus`), running an FMU (:mod:`.run`), the
closed-form theory of the reference vehicles (:mod:`.sedan`, :mod:`.semitrailer`), the fixtures
more than one test module uses (:mod:`.fixtures`), roads and terrain events (:mod:`.roads`,
:mod:`.terrain`), the event format's problems (:mod:`.events`) and the variable tables'
generated sections in docs/variables.md (:mod:`.docs`). No test module imports from another."""

package io.github.dropwizardhikari;

import io.dropwizard.validation.InterpolationHelper;
import org.hibernate.validator.messageinterpolation.ParameterMessageInterpolator;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ValidSettingsTest {
    /** The real interpolator reads the template the settings' messages are escaped into back as the text. */
    @Test
    void aTemplateReadsAsItsText() {
        String text = "C:\\pools\\${user}\\{file}.txt and \\ alone";
        String interpolated = new ParameterMessageInterpolator().interpolate(InterpolationHelper.escapeMessageParameter(text),
            new jakarta.validation.MessageInterpolator.Context() {
                @Override
                public jakarta.validation.metadata.ConstraintDescriptor<?> getConstraintDescriptor() {
                    return null;
                }

                @Override
                public Object getValidatedValue() {
                    return null;
                }

                @Override
                public <T> T unwrap(Class<T> type) {
                    throw new UnsupportedOperationException();
                }
            });
        assertThat(interpolated).isEqualTo(text);
    }
}
